// The desktop suite's system component and helpers shared by its spec files.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { onPath, type SystemComponent } from "../../support/system-component.js";

/** The programs the 0.4.2 server's desktop runs, plus xev for the typing test. */
const PROGRAMS = ["Xvfb", "openbox", "xdotool", "import", "convert", "xrandr", "ffmpeg", "xclip", "xdg-open", "xev"];

export const DESKTOP: SystemComponent = {
  name: "desktop",
  available: () => PROGRAMS.every((program) => onPath(program)),
  howToGet:
    "as root: .ci/system/desktop.sh (xvfb openbox xdotool imagemagick ffmpeg x11-xserver-utils dbus-x11 xauth " +
    "fonts-dejavu-core xclip xdg-utils x11-utils)",
};

/**
 * An X display number no other server on this host uses: the server's default `:99` is shared
 * by every test worker and helper on the machine.
 */
export function freeDisplayNumber(seed: number): number {
  for (let offset = 0; offset < 400; offset++) {
    const candidate = 300 + ((seed + offset) % 400);
    if (!existsSync(`/tmp/.X11-unix/X${candidate}`) && !existsSync(`/tmp/.X${candidate}-lock`)) return candidate;
  }
  throw new Error("no free X display number between 300 and 699");
}

/**
 * Pids of processes whose environment says they belong to this server's desktop (its HOME):
 * `xclip` and `dbus-daemon` outlive `desktop.stop()` and the server, reparented to pid 1.
 */
export function leftoverDesktopPids(home: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1").split("\0");
      if (environ.includes(`HOME=${home}`)) pids.push(Number(entry));
    } catch {
      // Gone already, or not ours to read.
    }
  }
  return pids;
}

/** Text typed into an `xev -event keyboard` window, from its stdout: the KeyPress strings in order. */
export function typedText(xevOutput: string): string {
  const events = xevOutput.split(/\n\s*\n/).map((event) => event.trim());
  const presses = events.filter((event) => event.startsWith("KeyPress"));
  return presses.map((event) => /XLookupString gives \d+ bytes: (?:\(\w+\) "(.*)")?/.exec(event)?.[1] ?? "").join("");
}
