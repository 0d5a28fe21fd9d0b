/**
 * No import circles in src/: every module's relative imports, types included, form a graph without
 * cycles, so each room can be read (and loaded) from its leaves up. Generated classes (src/imports) and
 * vendored code are left out.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import { dirname, join, relative } from 'path';

const SRC = join(__dirname, '..', 'src');

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'imports' || e.name === 'vendor' ? [] : modules(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The modules `file` imports or re-exports by a relative path. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)].flatMap((m) => {
    const target = join(dirname(file), m[1]);
    return [`${target}.ts`, join(target, 'index.ts')].filter(existsSync).slice(0, 1);
  });
}

/** The strongly connected components of more than one module (Tarjan's algorithm). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(relative(SRC, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('src/ has no import circles', () => {
  const graph = new Map(modules(SRC).map((f) => [f, importsOf(f)]));
  expect(graph.size).toBeGreaterThan(100);
  expect(circles(graph)).toEqual([]);
});

test('the check finds a circle where there is one', () => {
  expect(circles(new Map([[join(SRC, 'a.ts'), [join(SRC, 'b.ts')]], [join(SRC, 'b.ts'), [join(SRC, 'a.ts')]], [join(SRC, 'c.ts'), []]])))
    .toEqual([['a.ts', 'b.ts']]);
});
