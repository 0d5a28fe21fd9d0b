/**
 * Removes a single-node cluster kept for debugging (KIC_CLUSTER_KEEP=1) or left by a crashed test run,
 * and gives the host back as it was: `npx ts-node test/cluster/sweep.ts` (as root).
 */
import { acquireClusterLock, releaseClusterLock, sweepNodeHost } from './node-host';

async function main(): Promise<void> {
  await acquireClusterLock(0);
  try {
    const found = sweepNodeHost();
    process.stdout.write(found.length > 0 ? `removed: ${found.join('; ')}\n` : 'no cluster was left on this machine\n');
  } finally {
    releaseClusterLock();
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
});
