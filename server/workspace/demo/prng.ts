// Seeded pseudo-random numbers for the demo workspace. Same seed, same
// workspace: Math.random is never used.
export type Rng = {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** n lowercase hex characters. */
  hex(n: number): string;
  /** A new independent stream, so one part's draws never shift another's. */
  fork(label: string): Rng;
};

function hashSeed(seed: number, label: string): number {
  // FNV-1a over the label mixed with the seed.
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function createRng(seed: number, label = ""): Rng {
  // mulberry32: tiny, fast and good enough for fake data.
  let state = hashSeed(seed >>> 0, label);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[Math.floor(next() * items.length)]!;
    },
    chance: (p) => next() < p,
    hex: (n) => {
      let out = "";
      while (out.length < n) out += Math.floor(next() * 0x100000000).toString(16).padStart(8, "0");
      return out.slice(0, n);
    },
    fork: (child) => createRng(seed, `${label}/${child}`),
  };
  return rng;
}
