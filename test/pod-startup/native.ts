/** Fake native code for the architecture checks of preflight. */

/** The ELF machine of another architecture than this one (AArch64 on x86-64 hosts, x86-64 elsewhere). */
export const FOREIGN_ELF_MACHINE = process.arch === 'x64' ? 183 : 62;

/** The first 64 bytes of a 64-bit little-endian ELF shared object for `machine`: enough to identify it, not to load it. */
export function elfHeader(machine: number): Buffer {
  const b = Buffer.alloc(64);
  b.write('\x7fELF', 0, 'latin1');
  b[4] = 2; // 64-bit
  b[5] = 1; // little-endian
  b[6] = 1; // ELF version
  b.writeUInt16LE(3, 16); // ET_DYN
  b.writeUInt16LE(machine, 18);
  return b;
}
