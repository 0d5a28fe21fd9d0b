// Shared by the benchmarks: wall time and peak memory of a node process, over several runs.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A function that runs `node <nodeArgs>` `runs` times and returns the median wall time (ms) and the
 * highest peak RSS (MiB), read by a preloaded module when the process exits; `work` holds its files.
 */
export function nodeMeasurer(work, runs) {
  const preload = path.join(work, 'peak-rss.cjs');
  const rssFile = path.join(work, 'rss.txt');
  fs.writeFileSync(preload, "process.on('exit', () => require('fs').writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)));\n");
  return (nodeArgs, env = {}) => {
    const times = [];
    let peak = 0;
    for (let i = 0; i < runs; i++) {
      const started = process.hrtime.bigint();
      const r = spawnSync(process.execPath, ['--require', preload, ...nodeArgs], {
        encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, env: { ...process.env, ...env, PEAK_RSS_FILE: rssFile },
      });
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (r.status !== 0) throw new Error(`node ${nodeArgs.join(' ')} failed:\n${r.stderr}`);
      peak = Math.max(peak, Number(fs.readFileSync(rssFile, 'utf8')) / 1024);
    }
    times.sort((a, b) => a - b);
    return { ms: times[Math.floor(times.length / 2)], mib: peak };
  };
}
