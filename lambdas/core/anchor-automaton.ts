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
    const width = next;
    const trie = buildTrie(anchors, this.classes, width);
    completeWithFailureLinks(trie.delta, trie.accept, width, trie.states);
    const delta = new Int32Array(trie.states * width);
    for (let k = 0; k < delta.length; k++) {
      const t = trie.delta[k];
      delta[k] = trie.accept[t] === 1 ? -1 : t * width;
    }
    this.delta = delta;
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

/** The anchors' trie: -1 marks a missing edge, filled in later from the failure links. */
function buildTrie(
  anchors: readonly string[],
  classes: Uint8Array,
  width: number,
): { delta: Int32Array; accept: Uint8Array; states: number } {
  const maxStates = anchors.reduce((n, a) => n + a.length, 1);
  const delta = new Int32Array(maxStates * width).fill(-1);
  const accept = new Uint8Array(maxStates);
  let states = 1;
  for (const a of anchors) {
    let s = 0;
    for (let i = 0; i < a.length; i++) {
      const k = s * width + classes[a.charCodeAt(i)];
      if (delta[k] < 0) delta[k] = states++;
      s = delta[k];
    }
    accept[s] = 1;
  }
  return { delta, accept, states };
}

/** Breadth-first: every missing edge goes where the longest proper suffix would; acceptance is inherited. */
function completeWithFailureLinks(delta: Int32Array, accept: Uint8Array, width: number, states: number): void {
  const fail = new Int32Array(states);
  const queue = new Int32Array(states);
  let head = 0;
  let tail = 0;
  for (let c = 0; c < width; c++) {
    const t = delta[c];
    if (t < 0) delta[c] = 0;
    else if (t > 0) queue[tail++] = t;
  }
  // Class 0 (a character no anchor contains) always returns to the start.
  delta[0] = 0;
  while (head < tail) {
    const s = queue[head++];
    if (accept[fail[s]] === 1) accept[s] = 1;
    for (let c = 0; c < width; c++) {
      const k = s * width + c;
      const t = delta[k];
      if (t < 0) delta[k] = delta[fail[s] * width + c];
      else {
        fail[t] = delta[fail[s] * width + c];
        queue[tail++] = t;
      }
    }
  }
}
