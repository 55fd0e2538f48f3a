// The segments qrcode's Segments.fromString(text, version) chooses, computed the same way on arrays: the same
// runs, the same layered graph with its edge costs (including how buildGraph carries lastCount from one
// successor to the next), and dijkstrajs's shortest path with its order among equal costs (the cheapest
// entry first, the earliest pushed among equals, a predecessor replaced only by a strictly cheaper one).
// qrcode builds that graph as objects keyed by strings and re-sorts its queue at every push: its segmentation
// was two thirds of a native ESC/POS receipt's build once the note's parse got fast.
import * as Mode from 'qrcode/lib/core/mode.js';

export interface QrSegment {
  mode: Mode.QrMode;
  data: string;
  getLength(): number;
  getBitsLength(): number;
}

const enum Kind {
  Numeric = 0,
  Alphanumeric = 1,
  Byte = 2,
}

function kindOf(c: number): Kind {
  if (c >= 0x30 && c <= 0x39) return Kind.Numeric;
  // [A-Z $%*+\-./:]
  if (
    (c >= 0x41 && c <= 0x5a) ||
    c === 0x20 ||
    c === 0x24 ||
    c === 0x25 ||
    c === 0x2a ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x2f ||
    c === 0x3a
  )
    return Kind.Alphanumeric;
  return Kind.Byte;
}

/** UTF-8 length as qrcode measures it (unescape(encodeURIComponent(s)).length); lone surrogates excluded. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function bitsLength(length: number, mode: Kind): number {
  if (mode === Kind.Numeric) return 10 * Math.floor(length / 3) + (length % 3 ? (length % 3) * 3 + 1 : 0);
  if (mode === Kind.Alphanumeric) return 11 * Math.floor(length / 2) + 6 * (length % 2);
  return length * 8;
}

const MODES = [Mode.NUMERIC, Mode.ALPHANUMERIC, Mode.BYTE] as const;

class Segment implements QrSegment {
  readonly mode: Mode.QrMode;
  private readonly length: number;
  private readonly bits: number;

  constructor(
    kind: Kind,
    readonly data: string,
  ) {
    this.mode = MODES[kind];
    this.length = kind === Kind.Byte ? utf8Length(data) : data.length;
    this.bits = bitsLength(this.length, kind);
  }

  getLength(): number {
    return this.length;
  }

  getBitsLength(): number {
    return this.bits;
  }
}

function segment(kind: Kind, data: string): QrSegment {
  return new Segment(kind, data);
}

/** Lone surrogates make qrcode throw (encodeURIComponent): such text is left to qrcode itself. */
export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** Maximal runs of one class, as qrcode's three regexes find them (Kanji mode off, as QRCode.create leaves it). */
function runs(text: string): Array<{ kind: Kind; data: string }> {
  const out: Array<{ kind: Kind; data: string }> = [];
  let from = 0;
  let kind = kindOf(text.charCodeAt(0));
  for (let i = 1; i <= text.length; i++) {
    const k = i < text.length ? kindOf(text.charCodeAt(i)) : -1;
    if (k !== kind) {
      out.push({ kind, data: text.slice(from, i) });
      from = i;
      kind = k as Kind;
    }
  }
  return out;
}

/** Segments.rawSplit(text): each run in its own best mode. */
export function rawSegments(text: string): QrSegment[] {
  return runs(text).map((r) => segment(r.kind, r.data));
}

/** A min-queue ordered by cost, then by push order (dijkstrajs's stable re-sort at every push). */
class Queue {
  private readonly cost: number[] = [];
  private readonly seq: number[] = [];
  private readonly node: number[] = [];
  private pushed = 0;

  get size(): number {
    return this.node.length;
  }

  private less(a: number, b: number): boolean {
    const ca = this.cost[a] as number;
    const cb = this.cost[b] as number;
    return ca < cb || (ca === cb && (this.seq[a] as number) < (this.seq[b] as number));
  }

  private swap(a: number, b: number): void {
    for (const arr of [this.cost, this.seq, this.node]) {
      const t = arr[a] as number;
      arr[a] = arr[b] as number;
      arr[b] = t;
    }
  }

  push(node: number, cost: number): void {
    let i = this.node.length;
    this.node.push(node);
    this.cost.push(cost);
    this.seq.push(this.pushed++);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): { node: number; cost: number } {
    const top = { node: this.node[0] as number, cost: this.cost[0] as number };
    const last = this.node.length - 1;
    this.swap(0, last);
    this.node.pop();
    this.cost.pop();
    this.seq.pop();
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.node.length && this.less(l, m)) m = l;
      if (r < this.node.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }
}

/**
 * Segments.fromString(text, version): the segmentation qrcode encodes with, as segments that
 * Version.getBestVersionForData reads (mode, getLength, getBitsLength).
 * @throws Error when the text holds a lone surrogate (callers hand such text to qrcode).
 */
export function optimalSegments(text: string, version: number): QrSegment[] {
  if (hasLoneSurrogate(text)) throw new Error('lone surrogate');
  // buildNodes: a numeric run may also go as alphanumeric or byte, an alphanumeric run as byte.
  const kinds: Kind[] = [];
  const lengths: number[] = [];
  const datas: string[] = [];
  const layerStart: number[] = [];
  for (const run of runs(text)) {
    layerStart.push(kinds.length);
    const options =
      run.kind === Kind.Numeric
        ? [Kind.Numeric, Kind.Alphanumeric, Kind.Byte]
        : run.kind === Kind.Alphanumeric
          ? [Kind.Alphanumeric, Kind.Byte]
          : [Kind.Byte];
    for (const k of options) {
      kinds.push(k);
      datas.push(run.data);
      lengths.push(run.kind === Kind.Byte ? utf8Length(run.data) : run.data.length);
    }
  }
  const nodes = kinds.length;
  const START = nodes;
  const END = nodes + 1;
  const adjacency: Array<Array<[number, number]>> = Array.from({ length: nodes + 2 }, () => []);
  // buildGraph, with its lastCount carried per predecessor across the successors in order.
  const lastCount = new Array<number>(nodes).fill(0);
  const header = [0, 1, 2].map((k) => 4 + Mode.getCharCountIndicator(MODES[k as Kind], version));
  let previous: number[] = [START];
  for (let layer = 0; layer < layerStart.length; layer++) {
    const from = layerStart[layer] as number;
    const to = layer + 1 < layerStart.length ? (layerStart[layer + 1] as number) : nodes;
    const current: number[] = [];
    for (let key = from; key < to; key++) {
      current.push(key);
      const kind = kinds[key] as Kind;
      const length = lengths[key] as number;
      for (const prev of previous) {
        if (prev !== START && kinds[prev] === kind) {
          const last = lastCount[prev] as number;
          adjacency[prev]?.push([key, bitsLength(last + length, kind) - bitsLength(last, kind)]);
          lastCount[prev] = last + length;
        } else {
          if (prev !== START) lastCount[prev] = length;
          adjacency[prev]?.push([key, bitsLength(length, kind) + (header[kind] as number)]);
        }
      }
    }
    previous = current;
  }
  for (const prev of previous) adjacency[prev]?.push([END, 0]);

  // dijkstrajs.single_source_shortest_paths, then find_path back from END.
  const costs = new Array<number | undefined>(nodes + 2).fill(undefined);
  const predecessor = new Array<number>(nodes + 2).fill(-1);
  costs[START] = 0;
  const open = new Queue();
  open.push(START, 0);
  while (open.size > 0) {
    const { node: u, cost } = open.pop();
    for (const [v, weight] of adjacency[u] ?? []) {
      const total = cost + weight;
      const known = costs[v];
      if (known === undefined || known > total) {
        costs[v] = total;
        open.push(v, total);
        predecessor[v] = u;
      }
    }
  }
  const path: number[] = [];
  for (let v = predecessor[END] as number; v !== START; v = predecessor[v] as number) path.push(v);
  path.reverse();

  // mergeSegments, then fromArray: consecutive nodes of one mode become one segment.
  const merged: QrSegment[] = [];
  let kind = -1;
  let data = '';
  for (const v of path) {
    if (kinds[v] === kind) data += datas[v] as string;
    else {
      if (kind >= 0) merged.push(segment(kind as Kind, data));
      kind = kinds[v] as Kind;
      data = datas[v] as string;
    }
  }
  if (kind >= 0) merged.push(segment(kind as Kind, data));
  return merged;
}
