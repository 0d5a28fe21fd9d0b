/**
 * Deterministic generators of malformed YAML for the fuzz tests: mutations of valid files and a
 * fixed set of hostile documents. Same seed, same cases, so a failure always reproduces.
 */

/** A small seedable pseudo-random generator (Park–Miller minimal standard), in [0, 1). */
export function random(seed: number): () => number {
  const modulus = 2147483647;
  let state = (Math.abs(Math.floor(seed)) % (modulus - 1)) + 1;
  return () => {
    state = (state * 48271) % modulus;
    return (state - 1) / (modulus - 1);
  };
}

/** Text fragments that mean something to YAML. */
const TOKENS = [
  ':', ': ', '-', '- ', '?', '[', ']', '{', '}', ',', '&a', '*a', '!', '!!str', '!!python/object:os.system', '|', '>',
  '"', "'", '#', '%', '@', '`', '\t', '\n', '\n  ', '\n- ', '---', '...', '<<: *a', '\u0000', '\u00a0', '\ufeff',
  '\ud800', 'null', '~', 'yes', '0x1F', '1e999', '.nan', '${env.X}', '  ', '\r\n',
];

/** One random mutation of `text`. */
export function mutate(text: string, next: () => number): string {
  const pick = (n: number): number => Math.floor(next() * n);
  const at = pick(text.length + 1);
  const lines = text.split('\n');
  const line = pick(lines.length);
  switch (pick(8)) {
    case 0: return text.slice(0, at); // truncated
    case 1: return text.slice(0, at) + TOKENS[pick(TOKENS.length)] + text.slice(at);
    case 2: return text.slice(0, at) + text.slice(at + 1 + pick(40));
    case 3: return [...lines.slice(0, line + 1), lines[line], ...lines.slice(line + 1)].join('\n');
    case 4: {
      const other = pick(lines.length);
      const swapped = [...lines];
      [swapped[line], swapped[other]] = [swapped[other], swapped[line]];
      return swapped.join('\n');
    }
    case 5: return lines.map((l, i) => (i === line ? (next() < 0.5 ? ` ${l}` : l.replace(/^ /, '')) : l)).join('\n');
    case 6: return text.slice(0, at) + String.fromCharCode(pick(0x3000)) + text.slice(at + 1);
    default: return text.slice(0, at) + text.slice(pick(text.length)); // a random splice of the file into itself
  }
}

/** `count` cases, each one to three mutations of `text`. */
export function mutations(text: string, count: number, seed: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    let out = text;
    for (let n = 1 + Math.floor(next() * 3); n > 0; n--) out = mutate(out, next);
    return out;
  });
}

/** The classic "billion laughs": each level refers nine times to the one before. */
export function aliasBomb(levels: number): string {
  const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < levels; i++) {
    lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

/** Hostile documents, by name: deep, huge, alias bombs, garbage. Sizes straddle the limits. */
export function hostileDocuments(): Record<string, string> {
  const next = random(7);
  const garbage = Buffer.from(Array.from({ length: 4096 }, () => Math.floor(next() * 256))).toString('latin1');
  return {
    'deep flow sequences': `${'['.repeat(100000)}${']'.repeat(100000)}`,
    'deep flow mappings': `${'{a: '.repeat(50000)}1${'}'.repeat(50000)}`,
    'deep block sequences': `${'- '.repeat(200000)}x\n`,
    'deep block mappings': Array.from({ length: 1500 }, (_, i) => `${' '.repeat(i)}k:`).join('\n'),
    'unclosed deep flow': '['.repeat(300000),
    'alias bomb': aliasBomb(10),
    'merge-key bomb': `a: &a {x: 1}\n${Array.from({ length: 6 }, (_, i) => `b${i}: &b${i} {<<: [${Array.from({ length: 9 }, () => (i === 0 ? '*a' : `*b${i - 1}`)).join(', ')}]}`).join('\n')}\n`,
    'huge document': `providers:\n${'  x: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n'.repeat(60000)}`,
    'huge single line': `a: ${'x'.repeat(3 * 1024 * 1024)}\n`,
    'many small keys': Array.from({ length: 40000 }, (_, i) => `k${i}: v`).join('\n'),
    'binary garbage': garbage,
    'NUL bytes': 'apiVersion: llamastack.io/v1alpha1\u0000\nkind: \u0000\n',
    'python object tag': 'apiVersion: !!python/object/apply:os.system ["echo pwned"]\nkind: ProviderPackage\n',
    'several documents': 'a: 1\n---\nb: 2\n---\nc: 3\n',
    'only a document marker': '---\n',
    'byte order mark': '\ufeffa: 1\n',
    'tabs as indentation': 'a:\n\tb: 1\n',
    'unterminated quote': 'a: "never closed\n',
    'lone surrogate': 'a: \ud800\n',
  };
}
