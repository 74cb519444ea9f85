// Mode and model pickers, from what session/new (or session/load) answered (ACP `modes`, `models`,
// or a `model` select among `configOptions`) or, for models, the server's listModels(); an agent
// that offers neither leaves them disabled. The mode picker follows the transcript's current mode,
// so a mode the agent switches to by itself shows at once.
import { useEffect, useState } from "react";
import type { SandboxAgentClient, SessionHandle } from "sandbox-agent-rx";
import { errorText } from "./words.js";

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

function Picker({ label, options, value, onPick, onError }: {
  label: string;
  options: Choice[];
  value: string | undefined;
  onPick(id: string): Promise<unknown>;
  onError(message: string): void;
}) {
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState(value);
  useEffect(() => setShown(value), [value]);
  return (
    <label className="picker">
      <span>{label}</span>
      <select aria-label={label} disabled={busy || options.length === 0} value={shown ?? ""}
        onChange={(event) => {
          const id = event.target.value;
          setShown(id);
          setBusy(true);
          onPick(id)
            .catch((error: unknown) => onError(`Could not set ${label.toLowerCase()}: ${errorText(error)}`))
            .finally(() => setBusy(false));
        }}>
        {options.length === 0 ? <option value="">agent default</option> : null}
        {options.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
      </select>
    </label>
  );
}

export function Pickers({ client, sessionId, handle, currentModeId, currentModelId, onError }: {
  client: SandboxAgentClient;
  sessionId: string;
  handle: SessionHandle | undefined;
  currentModeId: string | undefined;
  currentModelId: string | undefined;
  onError(message: string): void;
}) {
  const modes = (handle?.modes ?? {}) as { availableModes?: unknown; currentModeId?: string };
  const config = modelOption(handle?.configOptions);
  const [models, setModels] = useState<{ options: Choice[]; current?: string }>(() => {
    if (config) return { options: (config.options ?? []).map((o) => ({ id: o.value, name: o.name ?? o.value })), ...(config.currentValue ? { current: config.currentValue } : {}) };
    const given = (handle?.models ?? {}) as { availableModels?: unknown; currentModelId?: string | null };
    return { options: choices(given.availableModels, "modelId"), ...(given.currentModelId ? { current: given.currentModelId } : {}) };
  });
  useEffect(() => {
    if (config || models.options.length > 0) return;
    // Not every agent answers session/new with models; the server may still know them.
    let live = true;
    client.listModels(sessionId, { timeoutMs: 5_000 }).then((list) => {
      const current = list.currentModelId ?? undefined;
      if (live) setModels({ options: choices(list.availableModels, "modelId"), ...(current ? { current } : {}) });
    }, () => undefined);
    return () => void (live = false);
  }, [client, sessionId]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <div className="pickers">
      <Picker label="Mode" options={choices(modes.availableModes, "id")} value={currentModeId ?? modes.currentModeId}
        onPick={(id) => client.setSessionMode(sessionId, id)} onError={onError} />
      <Picker label="Model" options={models.options} value={currentModelId ?? models.current} onError={onError}
        onPick={(id) => (config ? client.setSessionConfigOption(sessionId, config.id, id) : client.setSessionModel(sessionId, id))} />
    </div>
  );
}
