import * as fs from 'fs';
import * as path from 'path';
import { Document, stringify } from 'yaml';
import { stringifyYaml } from '../../src/cli/yaml-output';
import * as blockYaml from '../../src/io/block-yaml';
import { asKubectlReads } from '../../src/io/goyaml-schema';
import { CONFIG_LIMITS, parseUntrustedYaml, parseUntrustedYamlStream, readUntrustedYaml, YamlLimits } from '../../src/io/safe-yaml';
import { WholeFloat } from '../../src/io/scalars';
import { RunConfigError } from '../../src/run-config/errors';
import { hostileDocuments, mutate, random } from '../run-config/fuzz-inputs';

// The block reader is the fast path of parseUntrustedYamlStream (manifests, read as kubectl reads them) and
// of readUntrustedYaml (one config, read as PyYAML reads it): every text must read the same through it as
// through the `yaml` library alone (values, key order, number types), or be refused by both alike. The
// library alone is parseUntrustedYamlStream with the block reader made to give up, and parseUntrustedYaml.

const LIMITS: YamlLimits = { maxBytes: 16 * 1024 * 1024, maxDepth: 64, maxAliasCount: 1000, maxNodes: 2_000_000 };
const where = { source: 'in.yaml', resolution: 'Fix the YAML.' };
const repo = path.join(__dirname, '..', '..');

/** The outcome of a read, with every type and key order spelt out. */
function outcome(read: () => unknown[]): string {
  try {
    return spelt(read());
  } catch (e) {
    if (e instanceof RunConfigError) return `refused: ${e.message}`;
    throw e;
  }
}

function spelt(value: unknown): string {
  if (value instanceof WholeFloat) return `WholeFloat(${value.value})`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  // PyYAML's timestamps.
  if (value instanceof Date) return `Date(${value.getTime()})`;
  if (Array.isArray(value)) return `[${value.map(spelt).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    if (Object.getPrototypeOf(value) !== Object.prototype) return '<an object of another kind>';
    return `{${Object.getOwnPropertyNames(value).map((k) => `${JSON.stringify(k)}: ${spelt((value as Record<string, unknown>)[k])}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? String(value);
}

const withBlockReader = (text: string): string => outcome(() => parseUntrustedYamlStream(text, LIMITS, where));

function libraryAlone(text: string): string {
  const giveUp = jest.spyOn(blockYaml, 'readBlockYamlStream').mockReturnValue(undefined);
  try {
    return outcome(() => parseUntrustedYamlStream(text, LIMITS, where));
  } finally {
    giveUp.mockRestore();
  }
}

/** Expects both readers to read `text` with the block reader as with the library alone. */
function expectSameReading(text: string): void {
  expect([text, withBlockReader(text)]).toEqual([text, libraryAlone(text)]);
  const config = (read: () => unknown): string => outcome(() => [read()]);
  expect([text, config(() => readUntrustedYaml(text, CONFIG_LIMITS, where))])
    .toEqual([text, config(() => parseUntrustedYaml(text, CONFIG_LIMITS, where).value)]);
}

const scalars = new blockYaml.PlainScalars(new Document(null, { version: '1.1', customTags: asKubectlReads, logLevel: 'error', uniqueKeys: false }));
/** Whether the block reader reads `text` itself (rather than leaving it to the library). */
const readsItself = (text: string, bounds = LIMITS): boolean => blockYaml.readBlockYamlStream(text, scalars, bounds) !== undefined;

function yamlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : yamlFiles(file);
    return /\.ya?ml$/.test(e.name) ? [file] : [];
  }).sort();
}

const corpus = [...yamlFiles(path.join(repo, 'examples')), ...yamlFiles(path.join(repo, 'test', 'fixtures'))]
  .map((file) => ({ file: path.relative(repo, file), text: fs.readFileSync(file, 'utf8') }));

describe('the block reader', () => {
  test('reads every manifest and fixture of the repository as the library does', () => {
    expect(corpus.length).toBeGreaterThan(50);
    for (const { text } of corpus) expectSameReading(text);
    // The examples' rendered manifests are what it is for: it reads all of them itself.
    const rendered = corpus.filter(({ file }) => file.startsWith('examples/') && file.includes('/dist/'));
    expect(rendered.length).toBeGreaterThanOrEqual(2);
    expect(rendered.filter(({ text }) => !readsItself(text)).map(({ file }) => file)).toEqual([]);
    // And most of the rest (flow collections over several lines send a file to the library).
    expect(corpus.filter(({ text }) => readsItself(text)).length).toBeGreaterThan(corpus.length * 0.9);
  });

  test('reads what render and the library\'s writer write, strings of every kind included, as the library does', () => {
    const next = random(7);
    const pieces = ['a', ' ', '  ', ':', ': ', '#', ' #', '-', '- ', '"', "'", '\\', '|', '>', '{', '}', '[', ']', ',', '\n', '\n\n', '\t',
      'yes', 'on', '~', 'null', '0o17', '0x1F', '1.0', '-0', '1e3', '.5', '9007199254740993', '<<', '---', '...', '%', '&', '*', '!',
      '\u00a0', 'é', '\u2028', '=', '?', '@', '`', '$(VAR)'];
    const word = () => Array.from({ length: 1 + Math.floor(next() * 4) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
    // Long enough, at times, that the library's writer folds it over lines.
    const stringValue = () => (next() < 0.2 ? Array.from({ length: 10 + Math.floor(next() * 30) }, word).join(next() < 0.5 ? ' ' : '  ') : word());
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 3 || r < 0.5) return r < 0.1 ? Math.floor(next() * 1e6) : r < 0.15 ? null : r < 0.2 ? true : stringValue();
      if (r < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, () => [word(), value(depth + 1)]));
    };
    let itself = 0;
    for (let n = 0; n < 300; n++) {
      const documents = [{ kind: 'ConfigMap', data: value(0) }, { spec: value(0) }];
      const flowStyle = documents.map((d) => stringify(d, { collectionStyle: 'flow', lineWidth: 0 })).join('---\n');
      const json = documents.map((d) => JSON.stringify(d)).join('\n---\n');
      for (const text of [stringifyYaml(documents), documents.map((d) => stringify(d)).join('---\n'), flowStyle, json, JSON.stringify(documents[0])]) {
        expectSameReading(text);
        if (readsItself(text)) itself++;
      }
    }
    // Tabs and line separators send a text to the library; most are read here.
    expect(itself).toBeGreaterThan(500);
  });

  test('reads mutations of real manifests as the library does, or leaves them to it', () => {
    const next = random(28);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    const inserts = ['#', ' #', ': ', ':', '- ', '-', '"', "'", "''", '|', '|-', '|+', '|2', '>', '{}', '[]', '{', '[', '&a ', '*a', '!x ',
      '!!str ', '---', '--- ', '...', ' ', '  ', '\\', '\\x4', '\\u00e9', '\\q', 'yes', '0o17', '1.0', '~', '<<', '__proto__', 'null',
      '\u00a0', '%', '? ', '\n', '\n  ', '\n- ', '\n---\n', '"a": ', 'x: |\n  y\n', ', ', ',', '{a: 1}', '[x, "y"]', ': {', '}', ']'];
    const scalarsToTry = ['0x1F', '1e3', '.5', '-0', '1_000', '9007199254740993', '12345678901234567890', 'yes', 'No', 'on', '~', 'null',
      '', '"q"', "'s''x'", '"\\t"', '"\\u2028"', '.inf', '.NaN', '2024-01-01', '1:20', '=', '<<', '-', '? x', '|', '|-\n    a\n    b', '>-\n  c', 'a #b', '1.0', '3.0e+0'];
    const sources = corpus.filter(({ text }) => text.length < 20_000);
    let itself = 0;
    for (let n = 0; n < 1500; n++) {
      const lines = pick(sources).text.split('\n');
      const start = Math.floor(next() * Math.max(1, lines.length - 40));
      const part = lines.slice(start, start + 40);
      for (let m = 1 + Math.floor(next() * 3); m > 0; m--) {
        const at = Math.floor(next() * part.length);
        const line = part[at] ?? '';
        const op = next();
        if (op < 0.35) {
          const column = Math.floor(next() * (line.length + 1));
          part[at] = line.slice(0, column) + pick(inserts) + line.slice(column);
        } else if (op < 0.55) {
          const colon = line.indexOf(': ');
          part[at] = colon >= 0 ? `${line.slice(0, colon + 2)}${pick(scalarsToTry)}` : `${line}${pick(scalarsToTry)}`;
        } else if (op < 0.7) {
          part[at] = next() < 0.5 ? ` ${line}` : line.replace(/^ {1,2}/, '');
        } else if (op < 0.8) {
          part.splice(at, 0, line);
        } else if (op < 0.85) {
          part.splice(at, 1);
        } else {
          part.splice(0, part.length, ...mutate(part.join('\n'), next).split('\n'));
        }
      }
      const text = part.join('\n');
      expectSameReading(text);
      if (readsItself(text)) itself++;
    }
    // The mutations must exercise the reader, not only the library behind it.
    expect(itself).toBeGreaterThan(300);
  });

  test('reads hostile documents as the library does, or leaves them to it', () => {
    for (const text of Object.values(hostileDocuments())) expectSameReading(text);
  });

  test('keys and numbers as kubectl reads them, the same as the library', () => {
    const text = [
      'a: 0O17', 'b: 9007199254740993', 'c: 1.0', 'd: -0.0', 'e: yes', 'f: ~', 'g:', '8080: port', 'on: t', '~: nn', '"q": "\\u00e9\\x41"',
      "s: 'it''s'", '__proto__: {x: 1}', 'toString: 2', 'h: a #comment', 'i: b#c', 'j: \u00a0x', 'k: []', 'l: {}', 'fl: {a: [1, "x", {b: -1}], "c": yes, 8: http://h:1/p}',
      'm: |-', '  line 1', '', '    indented', 'nl: |', '  last', 'o:', '- 1', '- x: 2', '  z: [] # c', '-', '- {p: 1}', '- - nested',
    ].join('\n');
    // A nested sequence on one line is the library's to read.
    expect(readsItself(text)).toBe(false);
    const ours = text.replace('- - nested', '- nested');
    expect(readsItself(ours)).toBe(true);
    expectSameReading(ours);
    // YAML 1.1 booleans as keys are strings of their value (`on` is "true"); JavaScript lists integer keys first.
    expect(withBlockReader(ours)).toBe('[{"8080": "port", "a": 15, "b": 9007199254740993n, "c": WholeFloat(1), "d": -0, "e": true, "f": null, '
      + '"g": null, "true": "t", "": "nn", "q": "éA", "s": "it\'s", "__proto__": {"x": 1}, "toString": 2, "h": "a", "i": "b#c", "j": "\u00a0x", '
      + '"k": [], "l": {}, "fl": {"8": "http://h:1/p", "a": [1, "x", {"b": -1}], "c": true}, "m": "line 1\\n\\n  indented", "nl": "last\\n", "o": [1, {"x": 2, "z": []}, null, {"p": 1}, "nested"]}]');
  });

  test('gives up on what the library refuses or reads its own way, and on crossing the bounds', () => {
    for (const text of ['a: 1\na: 2\n', 'a: &x 1\nb: *x\n', 'a: !!str 1\n', '%YAML 1.1\n---\na: 1\n',
      'a: >\n  x\n', 'a: |+\n  x\n\n', '<<: {}\n', 'a:\n\tb: 1\n', 'a: 1\r\n', 'a: b: c\n', 'a: [1,\n  2]\n', 'x\n', 'a: |\n x\n',
      // Block scalars: a less indented line, more-indented blank lines (content to the library) before or after.
      'a: |\n    x\n  y\n', 'a: |\n  x\n     \nb: 1\n', 'a: |\n     \n  x\n',
      // Content on a document marker's line; a key longer than the library's 1024; a key that is a float; a code point beyond Unicode.
      '--- a\n', '--- {}\n', `${'k'.repeat(1030)}: v\n`, 'b: 1\n1.0: x\n', 'a: "\\U00110000"\n',
      // Flow collections: a trailing comma, an empty entry, a space before `:`, a plain key
      // without a space after its `:`, a pair in a sequence, a key alone, a comment inside, a key that is one, a duplicate key.
      'a: {b: 1, }\n', 'a: [1, , 2]\n', 'a: {b : 1}\n', 'a: {b:1}\n', 'a: [b: 1]\n', 'a: {b}\n', 'a: [1 #c\n  ]\n',
      '{a: 1}: b\n', 'a: {b: 1, b: 2}\n', 'a: {<<: {}}\n', 'a: [-]\n', 'a: [1]]\n', 'a: [1 #c, 2]\n', 'a: [b:, c]\n', 'a: {b:}\n', 'a: [1, 2\n',
      // A plain << as a value, which PyYAML refuses.
      'a: <<\n', 'a: [<<]\n']) {
      expect([text, readsItself(text)]).toEqual([text, false]);
      expectSameReading(text);
    }
    expect(readsItself('a:\n  b:\n    c: 1\n', { ...LIMITS, maxDepth: 10 })).toBe(false);
    expect(readsItself('a: [[[[1]]]]\n', { ...LIMITS, maxDepth: 10 })).toBe(false);
    expect(readsItself('a: [[[[1]]]]\n')).toBe(true);
    expect(readsItself('a: 1\nb: 2\n', { ...LIMITS, maxNodes: 5 })).toBe(false);
    expect(readsItself('a: 1\nb: 2\n', { ...LIMITS, maxNodes: 8 })).toBe(true);
  });

  test('scalars over several lines, as PyYAML writes long strings, folded as the library folds them', () => {
    const read = [
      'a: "x\n  y"\n', 'a: x\n  y\n', '- a: x\n   y\n', '- x\n  y\n', 'a:\n- x\n  y\n', 'a: x\n\n\n  y\n  z\nb: 1\n',
      "a: 'it''s\n  long''\n\n  '\n", "a: 'x  \n   \n    y '\n", 'a: "x \\\n   y\\n\n\n  \\t z  "\n', 'a: "\\\"\n  "\n',
      'a: x # c\nb: y\n', 'a: 1\n  2\n', 'a: yes\n  no\n', '- "a\n\n  b" # c\n- c\n', 'a: "x   \n  y  "\n', 'a: x\n  # c\nb: 1\n',
    ];
    for (const text of read) {
      expect([text, readsItself(text)]).toEqual([text, true]);
      expectSameReading(text);
    }
    // Continuation lines less indented than their scalar, or that start or hold something else.
    for (const text of ['a: x\ny\n', 'a: "x\ny"\n', '- x\n y\n', 'a: x\n  - y\n', 'a: x\n  y: z\n', 'a: x\n  y #c\n', 'a: x\n  # c\n  y\n',
      'a: x\n  [y]\n', 'a: "x\n---\n"\n', 'a: x\n  y:\n', "a: 'x\n  y' z\n", 'a: "x\n']) {
      expectSameReading(text);
    }
  });

  test('documents as the library counts them: one config is one document, empty ones included', () => {
    for (const text of ['a: 1\n---\n', '---\n---\n', '# c\n---\na: 1\n', '', '# only\n', '---\n', '{"a":1,"b":[true,null,"x\\n"],"c":{}}\n', 'a: {b:[1], c:{d: 2}}\n']) {
      expect([text, readsItself(text)]).toEqual([text, true]);
      expectSameReading(text);
    }
    expect(() => readUntrustedYaml('a: 1\n---\n', CONFIG_LIMITS, where)).toThrow('The file holds 2 YAML documents');
  });

  test('a scalar its schema reports or cannot resolve is left to the library, which names it', () => {
    const reporting = new blockYaml.PlainScalars(new Document(null, {
      customTags: [
        { tag: '!reported', default: true, test: /^reported$/, resolve: (text: string, onError: (message: string) => void) => { onError('no'); return text; } },
        { tag: '!thrown', default: true, test: /^thrown$/, resolve: () => { throw new Error('no'); } },
      ],
    }));
    expect(blockYaml.readBlockYamlStream('a: other\n', reporting, LIMITS)).toEqual([{ a: 'other' }]);
    expect(blockYaml.readBlockYamlStream('a: reported\n', reporting, LIMITS)).toBeUndefined();
    expect(blockYaml.readBlockYamlStream('a: thrown\n', reporting, LIMITS)).toBeUndefined();
  });
});
