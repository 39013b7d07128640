/**
 * An Aho–Corasick automaton over ASCII anchors, folding ASCII case: it answers "does the text contain
 * any anchor, ignoring ASCII case?" in one pass with one table lookup per character. Linear time by
 * construction, no allocation per call (no lower-cased copy of the text).
 *
 * Case folding is ASCII only, which is what the catalogue's `/i` patterns do: without the `u` flag a
 * JavaScript regex never matches a non-ASCII character against an ASCII letter, so a character at or
 * above U+0080 can take part in no anchor and sends the automaton back to its start.
 */
export class AnchorAutomatonError extends Error {
  override readonly name = 'AnchorAutomatonError';
}

export class AnchorAutomaton {
  /** UTF-16 code unit → alphabet class (0: a character no anchor contains, every non-ASCII one). */
  private readonly classes = new Uint8Array(65536);
  /**
   * Next state as an offset into this table (state × width), or -1 when the next state ends an
   * anchor: the search stops there, so an accepting state never needs a row of its own.
   */
  private readonly delta: Int32Array;

  constructor(anchors: readonly string[]) {
    if (anchors.length === 0) throw new AnchorAutomatonError('no anchors');
    let next = 1;
    for (const a of anchors) {
      if (!/^[\x20-\x7e]+$/.test(a) || a !== a.toLowerCase())
        throw new AnchorAutomatonError(`anchor ${JSON.stringify(a)} is not lower-case printable ASCII`);
      for (let i = 0; i < a.length; i++) {
        const c = a.charCodeAt(i);
        if (this.classes[c] === 0) this.classes[c] = next++;
      }
    }
    // Upper-case letters share their lower-case letter's class.
    for (let c = 65; c <= 90; c++) this.classes[c] = this.classes[c + 32];
    this.delta = transitions(buildTrie(anchors, this.classes), next);
  }

  /** True when `text` contains an anchor, ignoring ASCII case. */
  test(text: string): boolean {
    const { classes, delta } = this;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      s = delta[s + classes[text.charCodeAt(i)]];
      if (s < 0) return true;
    }
    return false;
  }
}

/** The anchors' trie as child lists (0 ends a list: the start state is nobody's child). */
interface Trie {
  readonly states: number;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  /** Alphabet class of the edge into each state. */
  readonly classOf: Int32Array;
  /** 1 where an anchor ends. */
  readonly terminal: Uint8Array;
}

function buildTrie(anchors: readonly string[], classes: Uint8Array): Trie {
  const max = anchors.reduce((n, a) => n + a.length, 1);
  const trie = {
    states: 1,
    firstChild: new Int32Array(max),
    nextSibling: new Int32Array(max),
    classOf: new Int32Array(max),
    terminal: new Uint8Array(max),
  };
  const { firstChild, nextSibling, classOf } = trie;
  for (const a of anchors) {
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
    trie.terminal[s] = 1;
  }
  return trie;
}

/**
 * The transition table, breadth-first (Aho–Corasick): a state's row is its failure state's row (a
 * native copy; that row is complete, its state being shallower) with the state's own edges on top.
 * An edge into a state whose text ends with an anchor (its own, or its failure path's: -1 there) is
 * -1; such states stop the search, so they get no row and their subtrees are never visited.
 * Work: one row copy per state instead of a loop over every (state, class) cell, which cost ~10 ms
 * of each cold start of the functions that classify (issue 15, `npm run bench:init`).
 */
function transitions(trie: Trie, width: number): Int32Array {
  const { firstChild, nextSibling, classOf, terminal } = trie;
  // Row 0 (the start state): every class leads back to the start (offset 0) until an edge says otherwise.
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
      // Where the failure path goes on this class (the row holds it until u's own edge replaces it).
      const via = s === 0 ? 0 : delta[row + classOf[u]];
      const accepting = terminal[u] === 1 || via < 0;
      if (!accepting) {
        fail[u] = via / width;
        queue[tail++] = u;
      }
      delta[row + classOf[u]] = accepting ? -1 : u * width;
    }
  }
  return delta;
}
