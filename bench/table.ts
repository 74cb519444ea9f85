// The report: one markdown table of medians, ratios and targets, printed at the end of a run.

export interface Target {
  /** What the ratio or value must satisfy, as printed, e.g. `≤ 2.0× raw`. */
  label: string;
  met: boolean;
}

export interface Row {
  scenario: string;
  metric: string;
  ours: number | undefined;
  upstream: number | undefined;
  raw: number | undefined;
  /** Digits after the point for the three values. */
  digits?: number;
  /** Ratios are ours/other, or other/ours when `higherIsBetter` is false (so >1 always favours ours). */
  higherIsBetter?: boolean;
  showRatios?: boolean;
  target?: Target;
}

const dash = "–";

function formatValue(value: number | undefined, digits: number): string {
  if (value === undefined || Number.isNaN(value)) return dash;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** How many times better ours is than `other` (>1: ours better), whichever direction is better. */
export function advantage(ours: number | undefined, other: number | undefined, higherIsBetter: boolean): number | undefined {
  if (ours === undefined || other === undefined || ours === 0 || other === 0 || Number.isNaN(ours) || Number.isNaN(other)) return undefined;
  return higherIsBetter ? ours / other : other / ours;
}

function formatRatio(value: number | undefined): string {
  return value === undefined ? dash : `${value.toFixed(2)}×`;
}

export function renderTable(rows: readonly Row[]): string {
  const header = ["#", "metric", "ours", "upstream", "raw", "ours vs upstream", "ours vs raw", "target", "met"];
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of rows) {
    const digits = row.digits ?? 0;
    const better = row.higherIsBetter ?? true;
    const ratios = row.showRatios ?? true;
    lines.push(
      `| ${[
        row.scenario,
        row.metric,
        formatValue(row.ours, digits),
        formatValue(row.upstream, digits),
        formatValue(row.raw, digits),
        ratios ? formatRatio(advantage(row.ours, row.upstream, better)) : dash,
        ratios ? formatRatio(advantage(row.ours, row.raw, better)) : dash,
        row.target?.label ?? "",
        row.target ? (row.target.met ? "yes" : "**no**") : "",
      ].join(" | ")} |`,
    );
  }
  return lines.join("\n");
}
