// A strict reader of the Prometheus text exposition format (version 0.0.4)
// for tests: every line must be a HELP, a TYPE or a sample of a declared
// family, or the parse throws. Enough of the format to check what we emit.
export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; type: string; help: string; samples: Sample[] };

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/;
const SUFFIXES = ["_bucket", "_sum", "_count", "_total", ""];

function parseLabels(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text ?? "";
  while (rest.length > 0) {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`bad label set: ${text}`);
    const [, key = "", raw = ""] = match;
    labels[key] = raw.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    rest = rest.slice(match[0].length);
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const value = Number(text);
  if (!Number.isFinite(value) && !/^[-+]?\d/.test(text)) throw new Error(`bad sample value: ${text}`);
  return value;
}

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const familyOf = (sample: string): Family => {
    for (const suffix of SUFFIXES) {
      if (!sample.endsWith(suffix)) continue;
      const family = families.get(sample.slice(0, sample.length - suffix.length));
      if (family) return family;
    }
    throw new Error(`sample of an undeclared family: ${sample}`);
  };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      const [, kind, name = "", rest = ""] = meta;
      if (!new RegExp(`^${NAME}$`).test(name)) throw new Error(`bad metric name: ${name}`);
      const family = families.get(name) ?? { name, type: "untyped", help: "", samples: [] };
      if (kind === "HELP") family.help = rest;
      else if (["counter", "gauge", "histogram", "summary", "untyped"].includes(rest)) family.type = rest;
      else throw new Error(`bad type: ${rest}`);
      families.set(name, family);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`unparseable line: ${line}`);
    const [, name = "", labelText, value = ""] = sample;
    familyOf(name).samples.push({ name, labels: parseLabels(labelText), value: parseValue(value) });
  }
  return families;
}

/** The one sample of `name` whose labels include `labels`; throws when absent. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) return sample.value;
    }
  }
  throw new Error(`no sample ${name} ${JSON.stringify(labels)}`);
}
