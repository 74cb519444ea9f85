// The schema JSON the official ACP SDK ships (`schema/v1` stable, `schema/v2` the draft), read by path
// (the package's exports name no JSON; the dev dependency is pinned and the coverage specs say which),
// and the questions both coverage specs ask of it: its methods by side, a field's referenced
// definition.
import { readFileSync } from "node:fs";

/** A definition of the schema, as far as the coverage specs read it. */
export interface SchemaDef {
  type?: string | string[];
  properties?: Record<string, SchemaDef>;
  allOf?: SchemaDef[];
  anyOf?: SchemaDef[];
  oneOf?: SchemaDef[];
  $ref?: string;
  const?: string;
  required?: string[];
  "x-side"?: string;
  "x-method"?: string;
}

const sdkFile = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../node_modules/@agentclientprotocol/sdk/${path}`, import.meta.url), "utf8"));

/** The installed SDK's version. */
export const sdkVersion = (sdkFile("package.json") as { version: string }).version;

/** One version's schema: its definitions, and what the coverage specs read from them. */
export function acpSchema(version: "v1" | "v2") {
  const defs = (sdkFile(`schema/${version}/schema.json`) as { $defs: Record<string, SchemaDef> }).$defs;

  /** The methods by who answers them: the agent (x-side "agent" or "protocol") or the client. */
  const methods = () => {
    const toAgent = new Set<string>();
    const toClient = new Set<string>();
    const notificationsToClient = new Set<string>();
    for (const [name, def] of Object.entries(defs)) {
      const method = def["x-method"];
      if (!method) continue;
      const side = def["x-side"];
      if (side === "agent" || side === "protocol") toAgent.add(method);
      if (side === "client" && name.endsWith("Notification")) notificationsToClient.add(method);
      else if (side === "client") toClient.add(method);
    }
    return { toAgent, toClient, notificationsToClient };
  };

  /** The definition a field refers to (`$ref`, or the first of its `allOf` / `anyOf` that is one). */
  const refOf = (def: SchemaDef | undefined): SchemaDef | undefined => {
    const ref = def?.$ref ?? def?.allOf?.[0]?.$ref ?? def?.anyOf?.find((d) => d.$ref)?.$ref;
    return ref ? defs[ref.replace("#/$defs/", "")] : undefined;
  };

  return { defs, methods, refOf };
}

/** The methods `docs/acp-sdk-interop.md` has a table row for (a row starts with the method in backticks). */
export function interopTableRows(): Set<string> {
  const doc = readFileSync(new URL("../../docs/acp-sdk-interop.md", import.meta.url), "utf8");
  return new Set([...doc.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]!));
}
