// Mode and model pickers, from what session/new answered (ACP `modes` and `models`) or, for models,
// the server's listModels(); an agent that offers neither leaves them disabled.
import type { SandboxAgentClient, SessionHandle } from "sandbox-agent-rx";
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

function picker(label: string, options: Choice[], current: string | null, onPick: (id: string) => Promise<void>): HTMLElement {
  const select = h("select", { "aria-label": label, disabled: options.length === 0 });
  if (options.length === 0) select.append(h("option", {}, "agent default"));
  for (const option of options) select.append(h("option", { value: option.id, selected: option.id === current }, option.name));
  select.addEventListener("change", () => {
    select.disabled = true;
    onPick(select.value)
      .catch((error: unknown) => alert(`Could not set ${label.toLowerCase()}: ${errorText(error)}`))
      .finally(() => (select.disabled = false));
  });
  return h("label", { class: "picker" }, h("span", {}, label), select);
}

export function modePicker(client: SandboxAgentClient, sessionId: string, handle: SessionHandle | undefined): HTMLElement {
  const modes = (handle?.modes ?? {}) as { availableModes?: unknown; currentModeId?: string };
  return picker("Mode", choices(modes.availableModes, "id"), modes.currentModeId ?? null, (id) =>
    client.setSessionMode(sessionId, id),
  );
}

export async function modelPicker(client: SandboxAgentClient, sessionId: string, handle: SessionHandle | undefined): Promise<HTMLElement> {
  let models = (handle?.models ?? {}) as { availableModels?: unknown; currentModelId?: string | null };
  if (!Array.isArray(models.availableModels)) {
    // Not every agent answers session/new with models; the server may still know them.
    models = await client.listModels(sessionId, { timeoutMs: 5_000 }).catch(() => ({}));
  }
  return picker("Model", choices(models.availableModels, "modelId"), models.currentModelId ?? null, (id) =>
    client.setSessionModel(sessionId, id),
  );
}
