// The agent's question (ACP elicitation), shown like the permission card while the agent waits: a
// form from the schema's simple properties (string, number, integer, boolean, a string enum, a
// multi-select of strings as checkboxes) with Accept and Decline, or a URL shown as plain text with
// Open and Decline. Everything here is the
// agent's text: React renders it as text, never as HTML, and Open follows only an http(s) URL.
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { SandboxAgentClient } from "sandbox-agent-rx";
import { useInput } from "sandbox-agent-rx/react";

type Value = string | number | boolean | string[];

/** A value to choose, with what to show for it (the agent's title, else the value). */
export interface Choice {
  value: string;
  label: string;
}

/** One field of a form question, read from the schema (anything else is left out, and said so). */
export interface QuestionField {
  name: string;
  label: string;
  description?: string;
  /** `array`: a multi-select, its `choices` as checkboxes. */
  type: "string" | "number" | "integer" | "boolean" | "array";
  choices?: Choice[];
  required: boolean;
  /** A multi-select's bounds on how many are chosen, and what is chosen at first (its `default`). */
  minItems?: number;
  maxItems?: number;
  initial?: string[];
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
    const choices = type === "string" ? enumOf(property) : type === "array" ? itemsOf(property.items) : undefined;
    const known = type === "string" || type === "number" || type === "integer" || type === "boolean";
    if (!known && !(type === "array" && choices)) {
      skipped++;
      continue;
    }
    const bounds = type === "array" ? multiSelectBounds(property, choices ?? []) : {};
    fields.push({
      name,
      label: typeof property.title === "string" ? property.title : name,
      ...(typeof property.description === "string" ? { description: property.description } : {}),
      type,
      ...(choices ? { choices } : {}),
      required: required.includes(name),
      ...bounds,
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

/** Why a form's answer cannot go yet (a multi-select with too few or too many chosen), or undefined. */
export function answerProblem(fields: QuestionField[], values: Record<string, Value>): string | undefined {
  for (const field of fields) {
    if (field.type !== "array") continue;
    const chosen = chosenOf(field, values).length;
    if (field.minItems !== undefined && chosen < field.minItems) {
      return `${field.label}: choose at least ${field.minItems}`;
    }
    if (field.maxItems !== undefined && chosen > field.maxItems) {
      return `${field.label}: choose at most ${field.maxItems}`;
    }
  }
  return undefined;
}

export function QuestionCard({ client, sessionId }: { client: SandboxAgentClient; sessionId: string }) {
  const { request: entry, reply } = useInput(client, sessionId);
  const [values, setValues] = useState<Record<string, Value>>({});
  const [problem, setProblem] = useState<string>();
  const first = useRef<HTMLElement | null>(null);
  const requestId = entry?.requestId;
  // A new question starts empty, and its first control takes the focus (as the permission card's does).
  useEffect(() => {
    setValues({});
    setProblem(undefined);
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
  const toggle = (field: QuestionField, choice: string, on: boolean) => {
    const chosen = chosenOf(field, values).filter((value) => value !== choice);
    // In the schema's order, whatever the order of the clicks.
    const order = (field.choices ?? []).map((c) => c.value);
    const next = on ? order.filter((value) => value === choice || chosen.includes(value)) : chosen;
    set(field.name, next);
    setProblem(undefined);
  };
  const accept = (event: FormEvent) => {
    event.preventDefault();
    const wrong = answerProblem(fields, values);
    if (wrong) return setProblem(wrong);
    const answer: Record<string, Value> = {};
    for (const field of fields) {
      const value = values[field.name];
      if (field.type === "array") {
        const chosen = chosenOf(field, values);
        // Nothing chosen in an optional multi-select is no answer for it.
        if (chosen.length > 0 || field.required) answer[field.name] = chosen;
      } else if (field.type === "boolean") answer[field.name] = value === true;
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
        if (field.type === "array") {
          const chosen = chosenOf(field, values);
          const full = field.maxItems !== undefined && chosen.length >= field.maxItems;
          return (
            <div key={field.name} className="question-field" id={id} role="group" aria-labelledby={`${id}-label`}>
              <span id={`${id}-label`}>{field.label}{field.required ? " *" : ""}</span>
              <span className="question-choices">
                {(field.choices ?? []).map((choice, j) => (
                  <label key={choice.value} className="question-choice">
                    <input type="checkbox" id={`${id}-${choice.value}`} name={field.name} value={choice.value}
                      ref={j === 0 ? focus : undefined} checked={chosen.includes(choice.value)}
                      // At the maximum, only what is chosen can change (unchosen).
                      disabled={full && !chosen.includes(choice.value)}
                      onChange={(e) => toggle(field, choice.value, e.target.checked)} />
                    {" "}{choice.label}{" "}
                  </label>
                ))}
              </span>
              {field.description ? <span className="muted">{field.description}</span> : null}
              {bounds(field) ? <span className="muted">{bounds(field)}</span> : null}
            </div>
          );
        }
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
                {field.choices.map((choice) => <option key={choice.value} value={choice.value}>{choice.label}</option>)}
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
      {problem ? <div className="error" id="question-problem" role="alert">{problem}</div> : null}
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

function enumOf(property: Record<string, unknown>): Choice[] | undefined {
  if (Array.isArray(property.enum)) return plainChoices(property.enum);
  // The protocol's titled enum: `oneOf` of `{ const, title }`.
  return Array.isArray(property.oneOf) ? titledChoices(property.oneOf) : undefined;
}

/** A multi-select's items: strings of an `enum`, or titled ones (`anyOf` of `{ const, title }`). */
function itemsOf(items: unknown): Choice[] | undefined {
  if (!isObject(items)) return undefined;
  if (items.type === "string" && Array.isArray(items.enum)) return plainChoices(items.enum);
  // Titled items have no `type` (as in MCP); another item type is one this card cannot show.
  if (items.type === undefined && Array.isArray(items.anyOf)) return titledChoices(items.anyOf);
  return undefined;
}

const plainChoices = (values: unknown[]): Choice[] =>
  values.filter((v): v is string => typeof v === "string").map((value) => ({ value, label: value }));

const titledChoices = (options: unknown[]): Choice[] =>
  options.filter(isObject).flatMap((o) => {
    if (typeof o.const !== "string") return [];
    return [{ value: o.const, label: typeof o.title === "string" ? o.title : o.const }];
  });

/** `minItems`, `maxItems` (whole numbers from 0) and the `default` choices that are offered. */
function multiSelectBounds(property: Record<string, unknown>, choices: Choice[]): Partial<QuestionField> {
  const count = (value: unknown): number | undefined =>
    typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
  const minItems = count(property.minItems);
  const maxItems = count(property.maxItems);
  const offered = new Set(choices.map((choice) => choice.value));
  const initial = Array.isArray(property.default)
    ? property.default.filter((v): v is string => typeof v === "string" && offered.has(v))
    : [];
  return { ...(minItems !== undefined ? { minItems } : {}), ...(maxItems !== undefined ? { maxItems } : {}), initial };
}

/** What a multi-select has chosen: the user's choice once made, its `default` before. */
function chosenOf(field: QuestionField, values: Record<string, Value>): string[] {
  const value = values[field.name];
  return Array.isArray(value) ? value : (field.initial ?? []);
}

/** A multi-select's bounds in words ("choose 1 to 2"), when it has any. */
function bounds(field: QuestionField): string | undefined {
  const { minItems: min, maxItems: max } = field;
  if (min !== undefined && max !== undefined) return min === max ? `choose ${min}` : `choose ${min} to ${max}`;
  if (min !== undefined) return `choose at least ${min}`;
  return max !== undefined ? `choose at most ${max}` : undefined;
}
