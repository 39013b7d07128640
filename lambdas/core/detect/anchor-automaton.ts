/**
 * An Aho–Corasick automaton over GROUPS of ASCII anchors, folding ASCII case: it answers "which groups
 * have an anchor in the text, ignoring ASCII case?" in one pass over the text, one table lookup per
 * character plus an OR of a state's group bits where an anchor ends. Linear time by construction, no
 * lower-cased copy of the text.
 *
 * Case folding is ASCII only, which is what the catalogue's `/i` patterns do: without the `u` flag a
 * JavaScript regex never matches a non-ASCII character against an ASCII letter, so a character at or
 * above U+0080 can take part in no anchor and sends the automaton back to its start.
 */
export class AnchorAutomatonError extends Error {
  override readonly name = 'AnchorAutomatonError';
}

export class AnchorGroupAutomaton {
  /** UTF-16 code unit → alphabet class (0: a character no anchor contains, every non-ASCII one). */
  private readonly classes: Uint8Array;
  /** Next state as an offset (state × width); `~offset` when that state ends an anchor of some group. */
  private readonly delta: Int32Array;
  /** Per state, `words` 32-bit words: bit g is set when the state's text ends with an anchor of group g. */
  private readonly groupBits: Uint32Array;
  private readonly width: number;
  /** 32-bit words of a result. */
  readonly words: number;

  constructor(groups: readonly (readonly string[])[]) {
    const anchors = groups.flat();
    const { classes, width } = alphabet(anchors);
    const trie = buildTrie(anchors, classes);
    this.classes = classes;
    this.width = width;
    this.words = Math.ceil(groups.length / 32);
    this.groupBits = new Uint32Array(trie.states * this.words);
    let n = 0;
    for (const [g, group] of groups.entries())
      for (const _ of group) this.groupBits[trie.ends[n++] * this.words + (g >>> 5)] |= 1 << (g & 31);
    this.delta = transitions(trie, width, this.groupBits, this.words);
  }

  /** The groups with an anchor in `text`: bit g of word g >>> 5; undefined when there are none. */
  groupsIn(text: string): Uint32Array | undefined {
    const { classes, delta, groupBits, width, words } = this;
    let hits: Uint32Array | undefined;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      s = delta[s + classes[text.charCodeAt(i)]];
      if (s < 0) {
        s = ~s;
        hits ??= new Uint32Array(words);
        const row = (s / width) * words;
        for (let w = 0; w < words; w++) hits[w] |= groupBits[row + w];
      }
    }
    return hits;
  }
}

/** The alphabet of the anchors: code unit → class (0 for every other character), and the class count. */
function alphabet(anchors: readonly string[]): { classes: Uint8Array; width: number } {
  if (anchors.length === 0) throw new AnchorAutomatonError('no anchors');
  const classes = new Uint8Array(65536);
  let next = 1;
  for (const a of anchors) {
    if (!/^[\x20-\x7e]+$/.test(a) || a !== a.toLowerCase())
      throw new AnchorAutomatonError(`anchor ${JSON.stringify(a)} is not lower-case printable ASCII`);
    for (let i = 0; i < a.length; i++) {
      const c = a.charCodeAt(i);
      if (classes[c] === 0) classes[c] = next++;
    }
  }
  // Upper-case letters share their lower-case letter's class.
  for (let c = 65; c <= 90; c++) classes[c] = classes[c + 32];
  return { classes, width: next };
}

/** The anchors' trie as child lists (0 ends a list: the start state is nobody's child). */
interface Trie {
  readonly states: number;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  /** Alphabet class of the edge into each state. */
  readonly classOf: Int32Array;
  /** The state each anchor ends in, in the order given. */
  readonly ends: Int32Array;
}

function buildTrie(anchors: readonly string[], classes: Uint8Array): Trie {
  const max = anchors.reduce((n, a) => n + a.length, 1);
  const trie = {
    states: 1,
    firstChild: new Int32Array(max),
    nextSibling: new Int32Array(max),
    classOf: new Int32Array(max),
    ends: new Int32Array(anchors.length),
  };
  const { firstChild, nextSibling, classOf } = trie;
  for (const [n, a] of anchors.entries()) {
    let s = 0;
    for (let i = 0; i < a.length; i++) {
      const c = classes[a.charCodeAt(i)];
      let t = firstChild[s];
      while (t !== 0 && classOf[t] !== c) t = nextSibling[t];
      if (t === 0) {
        t = trie.states++;
        classOf[t] = c;
        nextSibling[t] = firstChild[s];
        firstChild[s] = t;
      }
      s = t;
    }
    trie.ends[n] = s;
  }
  return trie;
}

/**
 * The transition table, breadth-first (Aho–Corasick): a state's row is its failure state's row (a
 * native copy; that row is complete, its state being shallower) with the state's own edges on top,
 * and its group bits take its failure state's. An edge into a state with any group bit is stored
 * `~offset`. Work: one row copy per state instead of a loop over every (state, class) cell, which
 * cost ~10 ms of each cold start of the functions that classify (issue 15, `npm run bench:init`).
 */
function transitions(trie: Trie, width: number, groupBits: Uint32Array, words: number): Int32Array {
  const { firstChild, nextSibling, classOf } = trie;
  const delta = new Int32Array(trie.states * width);
  const fail = new Int32Array(trie.states);
  const queue = new Int32Array(trie.states);
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const s = queue[head++];
    const row = s * width;
    if (s !== 0) delta.copyWithin(row, fail[s] * width, fail[s] * width + width);
    for (let u = firstChild[s]; u !== 0; u = nextSibling[u]) {
      const via = s === 0 ? 0 : delta[row + classOf[u]];
      fail[u] = (via < 0 ? ~via : via) / width;
      let any = 0;
      for (let w = 0; w < words; w++) any |= groupBits[u * words + w] |= groupBits[fail[u] * words + w];
      queue[tail++] = u;
      delta[row + classOf[u]] = any !== 0 ? ~(u * width) : u * width;
    }
  }
  return delta;
}
