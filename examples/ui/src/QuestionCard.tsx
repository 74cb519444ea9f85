// The agent's question (ACP elicitation), shown like the permission card while the agent waits: a
// form from the schema's simple properties (string, number, integer, boolean, a string enum) with
// Accept and Decline, or a URL shown as plain text with Open and Decline. Everything here is the
// agent's text: React renders it as text, never as HTML, and Open follows only an http(s) URL.
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { SandboxAgentClient } from "sandbox-agent-rx";
import { useInput } from "sandbox-agent-rx/react";

type Value = string | number | boolean;

/** One field of a form question, read from the schema (anything else is left out, and said so). */
export interface QuestionField {
  name: string;
  label: string;
  description?: string;
  type: "string" | "number" | "integer" | "boolean";
  choices?: string[];
  required: boolean;
}

/** The fields of a flat JSON Schema object this card can show, and how many it cannot. */
export function questionFields(schema: Record<string, unknown>): { fields: QuestionField[]; skipped: number } {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((n) => typeof n === "string") : [];
  const fields: QuestionField[] = [];
  let skipped = 0;
  for (const [name, raw] of Object.entries(properties)) {
    const property = isObject(raw) ? raw : {};
    const type = property.type;
    if (type !== "string" && type !== "number" && type !== "integer" && type !== "boolean") {
      skipped++;
      continue;
    }
    const choices = type === "string" ? enumOf(property) : undefined;
    fields.push({
      name,
      label: typeof property.title === "string" ? property.title : name,
      ...(typeof property.description === "string" ? { description: property.description } : {}),
      type,
      ...(choices ? { choices } : {}),
      required: required.includes(name),
    });
  }
  return { fields, skipped };
}

/** Only http(s) pages open from the card: an agent's `javascript:` or `file:` URL stays text. */
export function openableUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}

export function QuestionCard({ client, sessionId }: { client: SandboxAgentClient; sessionId: string }) {
  const { request: entry, reply } = useInput(client, sessionId);
  const [values, setValues] = useState<Record<string, Value>>({});
  const first = useRef<HTMLElement | null>(null);
  const requestId = entry?.requestId;
  // A new question starts empty, and its first control takes the focus (as the permission card's does).
  useEffect(() => {
    setValues({});
    first.current?.focus();
  }, [requestId]);
  if (!entry) return null;
  const question = entry.request;
  const decline = () => reply({ action: "decline" });

  if (question.kind === "url") {
    const openable = openableUrl(question.url);
    const open = () => {
      window.open(question.url, "_blank", "noopener,noreferrer");
      reply({ action: "accept" });
    };
    return (
      <div className="permission-card question-card" id="question" data-kind="url" role="alertdialog"
        aria-labelledby="question-message">
        <div className="permission-head">The agent asks you to open a page</div>
        <div className="permission-title" id="question-message">{question.message}</div>
        <div className="mono question-url" id="question-url">{question.url}</div>
        {openable ? null : <div className="muted">Only http(s) pages open from here.</div>}
        <div className="actions">
          <button type="button" className="danger" id="question-decline" onClick={decline}>Decline</button>
          <button type="button" className="primary" id="question-open" disabled={!openable}
            ref={(button) => void (first.current = button)} onClick={open}>Open</button>
        </div>
      </div>
    );
  }

  const { fields, skipped } = questionFields(question.schema);
  const set = (name: string, value: Value) => setValues((old) => ({ ...old, [name]: value }));
  const accept = (event: FormEvent) => {
    event.preventDefault();
    const answer: Record<string, Value> = {};
    for (const field of fields) {
      const value = values[field.name];
      if (field.type === "boolean") answer[field.name] = value === true;
      else if (value === undefined || value === "") continue;
      else if (field.type === "string") answer[field.name] = String(value);
      else answer[field.name] = field.type === "integer" ? Math.trunc(Number(value)) : Number(value);
    }
    reply({ action: "accept", values: answer });
  };
  return (
    <form className="permission-card question-card" id="question" data-kind="form" role="alertdialog"
      aria-labelledby="question-message" onSubmit={accept}>
      <div className="permission-head">The agent asks</div>
      <div className="permission-title" id="question-message">{question.message}</div>
      {fields.map((field, i) => {
        const id = `question-${field.name}`;
        const focus = i === 0 ? (element: HTMLElement | null) => void (first.current = element) : undefined;
        const value = values[field.name];
        return (
          <label key={field.name} className="question-field" htmlFor={id}>
            <span>{field.label}{field.required ? " *" : ""}</span>
            {field.type === "boolean" ? (
              <input id={id} name={field.name} type="checkbox" ref={focus} checked={value === true}
                onChange={(e) => set(field.name, e.target.checked)} />
            ) : field.choices ? (
              <select id={id} name={field.name} ref={focus} required={field.required} value={String(value ?? "")}
                onChange={(e) => set(field.name, e.target.value)}>
                <option value="">—</option>
                {field.choices.map((choice) => <option key={choice} value={choice}>{choice}</option>)}
              </select>
            ) : (
              <input id={id} name={field.name} ref={focus} required={field.required}
                type={field.type === "string" ? "text" : "number"} step={field.type === "integer" ? 1 : "any"}
                value={String(value ?? "")} onChange={(e) => set(field.name, e.target.value)} />
            )}
            {field.description ? <span className="muted">{field.description}</span> : null}
          </label>
        );
      })}
      {skipped > 0 ? (
        <div className="muted">{skipped} field(s) of a kind this page cannot show are left out.</div>
      ) : null}
      <div className="actions">
        <button type="button" className="danger" id="question-decline" onClick={decline}>Decline</button>
        <button type="submit" className="primary" id="question-accept">Accept</button>
      </div>
    </form>
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function enumOf(property: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(property.enum)) return property.enum.filter((v): v is string => typeof v === "string");
  // The protocol's titled enum: `oneOf` of `{ const, title }`.
  if (Array.isArray(property.oneOf)) {
    return property.oneOf.filter(isObject).map((o) => o.const).filter((v): v is string => typeof v === "string");
  }
  return undefined;
}
