// The desktop against the real 0.4.2 server with the Debian desktop packages (Xvfb, openbox,
// xdotool, ImageMagick, ffmpeg, xclip, xdg-utils, x11-utils). What it measures is printed at the end.
import { jest } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ControlPlaneHttp } from "../../../lib/sandbox/server/control-plane.js";
import type { Desktop } from "../../../lib/sandbox/server/desktop/index.js";
import { CallAbortedError, NotFoundError, SandboxAgentHttpError } from "../../../lib/sandbox/errors.js";
import { } from "../../../lib/sandbox/errors.js";
import { rejection } from "../../support/rejection.js";
import { describeWith } from "../../support/system-component.js";
import { DESKTOP, freeDisplayNumber, typedText } from "./desktop-component.js";
import { startDesktopServer, type DesktopServer } from "./desktop-server.js";
import { identify, pngSize } from "./images.js";
import { outputUntil } from "./process-output.js";

jest.setTimeout(60_000);

const WIDTH = 1024;
const HEIGHT = 768;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

describeWith([DESKTOP])("desktop against the real 0.4.2 server", () => {
  let running: DesktopServer;
  let http: ControlPlaneHttp;
  let desktop: Desktop;
  let dir: string;
  const measured: Record<string, string> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "desktop-spec-"));
    running = await startDesktopServer();
    ({ http, desktop } = running);
  });

  afterAll(async () => {
    await running?.stop();
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(`desktop suite measured: ${JSON.stringify(measured)}\n`);
  });

  it("starts inactive, then starts a display of the asked size", async () => {
    expect((await desktop.status()).state).toBe("inactive");
    const displayNum = freeDisplayNumber(process.pid);
    const startedAt = performance.now();
    const status = await desktop.start({ width: WIDTH, height: HEIGHT, dpi: 96, displayNum });
    measured.startMs = (performance.now() - startedAt).toFixed(0);
    const resolution = { width: WIDTH, height: HEIGHT, dpi: 96 };
    expect(status).toMatchObject({ state: "active", display: `:${displayNum}`, resolution });
    expect(status.processes?.map((p) => p.name).sort()).toEqual(["Xvfb", "dbus", "openbox"]);
    expect(await desktop.displayInfo()).toEqual({ display: `:${displayNum}`, resolution });
    // A second start answers with the running desktop, its options ignored.
    expect((await desktop.start({ width: 640, height: 480 })).resolution).toEqual(resolution);
  });

  it("takes screenshots: a PNG of the display's size, scaled JPEG, WebP, a region", async () => {
    const latencies: number[] = [];
    let png: Uint8Array = new Uint8Array();
    for (let i = 0; i < 5; i++) {
      const startedAt = performance.now();
      png = await desktop.screenshot();
      latencies.push(performance.now() - startedAt);
    }
    measured.screenshotMedianMs = median(latencies).toFixed(0);
    measured.screenshotPngBytes = String(png.byteLength);
    expect(pngSize(png)).toEqual({ width: WIDTH, height: HEIGHT });
    expect(identify(dir, "full.png", png)).toBe(`PNG ${WIDTH} ${HEIGHT}`);

    const jpeg = await desktop.screenshotFile({ format: "jpeg", quality: 60, scale: 0.5 });
    expect(jpeg.contentType).toBe("image/jpeg");
    expect(identify(dir, "half.jpg", jpeg.bytes)).toBe(`JPEG ${WIDTH / 2} ${HEIGHT / 2}`);
    const webp = await desktop.screenshotFile({ format: "webp", showCursor: true });
    expect(webp.contentType).toBe("image/webp");
    expect(Buffer.from(webp.bytes.subarray(8, 12)).toString("latin1")).toBe("WEBP");

    const region = await desktop.screenshotRegion({ x: 10, y: 20, width: 100, height: 50 });
    expect(pngSize(region)).toEqual({ width: 100, height: 50 });
    const error = await rejection(desktop.screenshot({ format: "gif" as "png" }));
    expect(error).toMatchObject({ name: "SandboxAgentHttpError", kind: "invalid-request" });
    expect((error as SandboxAgentHttpError).message).toContain("unknown variant `gif`");
  });

  let typingWindow = "";
  let typingProcess = "";

  it("types text into a window and reads it back from that window's own key events", async () => {
    // xev prints every key event it receives: what it printed is what reached the window.
    const args = ["-event", "keyboard", "-event", "button", "-name", "h4-typing"];
    const launched = await desktop.launch("xev", { args, wait: true });
    typingProcess = launched.processId;
    const focused = await desktop.windows.focused();
    expect(focused.title).toBe("h4-typing");
    typingWindow = focused.id;
    expect((await desktop.windows.list()).map((w) => w.id)).toContain(typingWindow);

    const text = "Hello, desktop 42!";
    expect(await desktop.keyboard.type(text, { delayMs: 5 })).toEqual({ ok: true });
    expect(await desktop.keyboard.press("a", { shift: true })).toEqual({ ok: true });
    // down/up with a modifier: a held letter would auto-repeat (the X server repeats held keys).
    await desktop.keyboard.down("shift");
    await desktop.keyboard.press("c");
    await desktop.keyboard.up("shift");
    await desktop.keyboard.press("d");
    const output = await outputUntil(http, typingProcess, (out) => typedText(out) === `${text}ACd`);
    expect(typedText(output)).toBe(`${text}ACd`);
  });

  it("clicks: focus moves to the window clicked, which sees the button press", async () => {
    await desktop.launch("xmessage", { args: ["h4-other-window"], wait: true });
    const other = await desktop.windows.focused();
    expect(other.title).toBe("xmessage");
    expect(other.id).not.toBe(typingWindow);
    const moved = await desktop.windows.move(other.id, 600, 400);
    expect(moved.id).toBe(other.id);
    expect((await desktop.windows.resize(other.id, 300, 120)).width).toBe(300);

    const target = (await desktop.windows.list()).find((w) => w.id === typingWindow);
    expect(target).toBeDefined();
    const x = target!.x + Math.floor(target!.width / 2);
    const y = target!.y + Math.floor(target!.height / 2);
    expect(await desktop.mouse.click(x, y)).toMatchObject({ x, y });
    expect((await desktop.windows.focused()).id).toBe(typingWindow);
    const output = await outputUntil(http, typingProcess, (out) => out.includes("ButtonPress event"));
    expect(output).toContain("ButtonPress event");
    expect(await desktop.mouse.position()).toMatchObject({ x, y });

    expect(await desktop.mouse.move(5, 6)).toMatchObject({ x: 5, y: 6 });
    expect(await desktop.mouse.down({ button: "left", x: 7, y: 8 })).toMatchObject({ x: 7, y: 8 });
    expect(await desktop.mouse.up({ button: "left" })).toMatchObject({ x: 7, y: 8 });
    expect(await desktop.mouse.drag({ x: 10, y: 10 }, { x: 40, y: 30 })).toMatchObject({ x: 40, y: 30 });
    expect(await desktop.mouse.scroll(x, y, { deltaY: 2 })).toMatchObject({ x, y });
    expect((await desktop.windows.focus(other.id)).id).toBe(other.id);
  });

  it("reports unknown windows, apps and bad arguments with typed errors", async () => {
    const window = await rejection(desktop.windows.focus("999999"));
    expect(window).toBeInstanceOf(NotFoundError);
    expect((window as NotFoundError).problem?.code).toBe("window_not_found");
    const app = await rejection(desktop.launch("h4-no-such-app"));
    expect(app).toBeInstanceOf(NotFoundError);
    expect((app as NotFoundError).problem?.code).toBe("app_not_found");
    const button = await rejection(desktop.mouse.click(1, 1, { button: "side" as "left" }));
    expect(button).toMatchObject({ name: "SandboxAgentHttpError", kind: "invalid-request" });
    expect((button as SandboxAgentHttpError).status).toBe(422);
  });

  it("clipboard: get works; set ends within its bound although the server never answers it", async () => {
    expect(await desktop.clipboard.get()).toEqual({ text: "", selection: "clipboard" });
    // Known 0.4.2 defect: POST /v1/desktop/clipboard waits for the `xclip -i` it starts, which
    // keeps running to own the selection, so the answer never comes (seen hanging > 300 s). The
    // client bounds the call (3 s by default) and then reads the clipboard back.
    const startedAt = performance.now();
    await expect(desktop.clipboard.set("h4 clipboard text", {}, { timeoutMs: 1500 })).resolves.toEqual({ ok: true });
    const elapsed = performance.now() - startedAt;
    measured.clipboardSetMs = elapsed.toFixed(0);
    expect(elapsed).toBeLessThan(15_000);
    expect(await desktop.clipboard.get()).toEqual({ text: "h4 clipboard text", selection: "clipboard" });
    expect((await desktop.clipboard.get({ selection: "primary" })).selection).toBe("primary");
    // The caller's own abort ends it at once, without the read-back.
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const call = { signal: controller.signal, timeoutMs: 20_000 };
    const aborted = await rejection(desktop.clipboard.set("other", {}, call));
    expect(aborted).toBeInstanceOf(CallAbortedError);
  });

  it("opens a file with xdg-open", async () => {
    const path = join(dir, "to-open.txt");
    writeFileSync(path, "opened by the desktop suite\n");
    const opened = await desktop.open(path);
    expect(opened.processId).toMatch(/^proc_/);
  });

  it("records the screen into a non-empty mp4, lists, downloads and deletes it", async () => {
    const recording = await desktop.recordings.start({ fps: 10 });
    expect(recording).toMatchObject({ status: "recording", bytes: 0 });
    expect(await rejection(desktop.recordings.start())).toMatchObject({ name: "SandboxAgentHttpError", status: 409 });
    for (let i = 0; i < 10; i++) {
      await desktop.mouse.move(50 + i * 40, 50 + i * 30);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const stopped = await desktop.recordings.stop();
    expect(stopped).toMatchObject({ id: recording.id, status: "completed" });
    expect(stopped.bytes).toBeGreaterThan(0);
    measured.recordingBytes = String(stopped.bytes);
    expect(await rejection(desktop.recordings.stop())).toMatchObject({ name: "SandboxAgentHttpError", status: 409 });
    expect((await desktop.recordings.list()).map((r) => r.id)).toContain(recording.id);
    expect(await desktop.recordings.get(recording.id)).toMatchObject({ id: recording.id, bytes: stopped.bytes });

    const file = await desktop.recordings.downloadFile(recording.id);
    expect(file.contentType).toBe("video/mp4");
    expect(file.bytes.byteLength).toBe(stopped.bytes);
    expect(Buffer.from(file.bytes.subarray(4, 8)).toString("latin1")).toBe("ftyp");
    writeFileSync(join(dir, "rec.mp4"), file.bytes);
    const probe = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", join(dir, "rec.mp4")];
    const duration = Number(execFileSync("ffprobe", probe, { encoding: "utf8" }));
    measured.recordingSeconds = duration.toFixed(2);
    expect(duration).toBeGreaterThan(0);

    await desktop.recordings.delete(recording.id);
    expect(await rejection(desktop.recordings.get(recording.id))).toBeInstanceOf(NotFoundError);
    expect(await rejection(desktop.recordings.download(recording.id))).toBeInstanceOf(NotFoundError);
  });

  it("stream: status answers; start is a typed 409 because Debian ships no neko", async () => {
    expect(await desktop.stream.status()).toEqual({ active: false });
    const error = await rejection(desktop.stream.start());
    expect(error).toBeInstanceOf(SandboxAgentHttpError);
    expect(error).toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "desktop-streamer-missing" });
    expect(await desktop.stream.stop()).toEqual({ active: false });
  });

  it("stops: inactive, and display calls fail with a desktop_runtime_inactive 409", async () => {
    const status = await desktop.stop();
    expect(status.state).toBe("inactive");
    expect(status.processes).toEqual([]);
    expect((await desktop.stop()).state).toBe("inactive");
    const info = await rejection(desktop.displayInfo());
    expect(info).toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "desktop-runtime-inactive" });
    expect(info).toBeInstanceOf(SandboxAgentHttpError);
    expect(await rejection(desktop.screenshot())).toMatchObject({ name: "SandboxAgentHttpError", status: 409, kind: "desktop-runtime-inactive" });
  });
});
