/** The reason `promise` rejects with; a promise that fulfils instead fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

/**
 * How `promise` settled within `ms`: its error, `{ value }`, or "pending" (a hang shows as that
 * instead of a jest timeout).
 */
export async function settled(promise: Promise<unknown>, ms = 5000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise((resolve) => (timer = setTimeout(() => resolve("pending"), ms)));
  try {
    return await Promise.race([promise.then((value) => ({ value }), (error: unknown) => error), pending]);
  } finally {
    clearTimeout(timer);
  }
}
