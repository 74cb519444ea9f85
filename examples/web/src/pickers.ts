// Mode and model pickers, from what session/new answered (ACP `modes` and `models`) or, for models,
// the server's listModels(); an agent that offers neither leaves them disabled. The mode picker
// follows current_mode_update, so a mode the agent switches to by itself shows at once.
import { filter, map, type Observable, type Subscription } from "rxjs";
import type { SandboxAgentClient, SandboxEvent, SessionHandle } from "sandbox-agent-rx";
import { errorText, h } from "./dom.js";

interface Choice {
  id: string;
  name: string;
}

function choices(list: unknown, idKey: string): Choice[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: Record<string, unknown>) => {
    const id = entry[idKey] ?? entry.id;
    return typeof id === "string" ? [{ id, name: typeof entry.name === "string" ? entry.name : id }] : [];
  });
}

function picker(
  label: string,
  options: Choice[],
  current: string | null,
  onPick: (id: string) => Promise<void>,
): HTMLElement {
  const select = h("select", { "aria-label": label, disabled: options.length === 0 });
  if (options.length === 0) select.append(h("option", {}, "agent default"));
  for (const option of options) {
    select.append(h("option", { value: option.id, selected: option.id === current }, option.name));
  }
  select.addEventListener("change", () => {
    select.disabled = true;
    onPick(select.value)
      .catch((error: unknown) => alert(`Could not set ${label.toLowerCase()}: ${errorText(error)}`))
      .finally(() => (select.disabled = false));
  });
  return h("label", { class: "picker" }, h("span", {}, label), select);
}

export function modePicker(
  client: SandboxAgentClient,
  sessionId: string,
  handle: SessionHandle | undefined,
  events$: Observable<SandboxEvent>,
  owner: Subscription,
): HTMLElement {
  const modes = (handle?.modes ?? {}) as { availableModes?: unknown; currentModeId?: string };
  const element = picker("Mode", choices(modes.availableModes, "id"), modes.currentModeId ?? null, (id) =>
    client.setSessionMode(sessionId, id),
  );
  const select = element.querySelector("select")!;
  owner.add(
    events$
      .pipe(
        map((event) => (event.kind === "update" && event.update.sessionUpdate === "current_mode_update"
          ? event.update.currentModeId : undefined)),
        filter((id): id is string => id !== undefined),
      )
      .subscribe((id) => (select.value = id)),
  );
  return element;
}

interface SelectOption {
  id: string;
  category?: string;
  type?: string;
  currentValue?: string;
  options?: Array<{ value: string; name?: string }>;
}

/** The agent's `model` select among its session config options (ACP configOptions), if any. */
function modelOption(configOptions: unknown): SelectOption | undefined {
  if (!Array.isArray(configOptions)) return undefined;
  return (configOptions as SelectOption[]).find((o) => o.category === "model" && o.type === "select");
}

export async function modelPicker(
  client: SandboxAgentClient,
  sessionId: string,
  handle: SessionHandle | undefined,
  events$: Observable<SandboxEvent>,
  owner: Subscription,
): Promise<HTMLElement> {
  const config = modelOption(handle?.configOptions);
  if (config) {
    // A config option is set through session/set_config_option and reported by config_option_update.
    const options = (config.options ?? []).map((o) => ({ id: o.value, name: o.name ?? o.value }));
    const element = picker("Model", options, config.currentValue ?? null, async (value) => {
      await client.setSessionConfigOption(sessionId, config.id, value);
    });
    const select = element.querySelector("select")!;
    owner.add(
      events$
        .pipe(
          map((event) => (event.kind === "unknown-update" && event.update.sessionUpdate === "config_option_update"
            ? modelOption(event.update.configOptions)?.currentValue : undefined)),
          filter((value): value is string => value !== undefined),
        )
        .subscribe((value) => (select.value = value)),
    );
    return element;
  }
  let models = (handle?.models ?? {}) as { availableModels?: unknown; currentModelId?: string | null };
  if (!Array.isArray(models.availableModels)) {
    // Not every agent answers session/new with models; the server may still know them.
    models = await client.listModels(sessionId, { timeoutMs: 5_000 }).catch(() => ({}));
  }
  return picker("Model", choices(models.availableModels, "modelId"), models.currentModelId ?? null, (id) =>
    client.setSessionModel(sessionId, id),
  );
}
