import { Command, parseCommandArgs, UsageError } from './io';
import { describeFsError, writeFilesAtomically } from '../io';
import { SCRIPTS_DIR } from '../llama-stack/pod';
import { initScripts, initScriptsDigest } from '../llama-stack/scripts';
import { packageVersion } from '../run-config/merge-image';

const USAGE = `Usage: kube-inference write-init-scripts --sha256 DIGEST [--dir DIR]

Writes the init-container scripts this kube-inference version carries into DIR (default ${SCRIPTS_DIR}):
the first init container of a pod that merges its config in the pod runs it from the merge image, so
the manifests need not carry the scripts. DIGEST is the SHA-256 of the scripts the manifest was
rendered with (the pod template's kube-inference.io/init-scripts-hash); a merge image of another
version carries other scripts and writes nothing.

  --sha256 DIGEST  the digest the manifest expects (64 hexadecimal digits)
  --dir DIR        the scripts volume, default ${SCRIPTS_DIR}

Exit codes: 0 written; 1 the digest differs or DIR cannot be written; 2 bad usage.`;

/** `kube-inference write-init-scripts`: the scripts volume filled from the merge image, checked against the manifest. */
export const writeInitScriptsCommand: Command = {
  name: 'write-init-scripts',
  usage: USAGE,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { sha256: { type: 'string' }, dir: { type: 'string' } },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}': write-init-scripts takes options only`);
    const expected = values.sha256;
    if (expected === undefined || !/^[0-9a-f]{64}$/.test(expected)) {
      throw new UsageError(`--sha256 needs the 64 lower-case hexadecimal digits of the manifest's init-scripts hash; found ${expected === undefined ? 'none' : `'${expected}'`}`);
    }
    const dir = values.dir ?? SCRIPTS_DIR;
    const carried = initScriptsDigest();
    if (carried !== expected) {
      io.stderr(`error: this merge image (kube-inference ${packageVersion()}) carries init scripts with SHA-256 ${carried}, `
        + `but the manifest was rendered for scripts with SHA-256 ${expected}: the merge image and the library that rendered the `
        + 'manifest are of different versions. Set the stack\'s mergeImage (the kube-inference.io/merge-image annotation for `render`) '
        + 'to the merge image built from the kube-inference-constructs version that rendered the manifest, or render again with the version '
        + 'of this image. Nothing was written.\n');
      return 1;
    }
    try {
      writeFilesAtomically(dir, Object.entries(initScripts()).map(([name, text]) => ({ name, text })));
    } catch (e) {
      io.stderr(`error: cannot write the init scripts into ${dir}: ${describeFsError(e)}. Mount the scripts volume read-write in this container. No script was left half-written.\n`);
      return 1;
    }
    io.stdout(`wrote ${Object.keys(initScripts()).length} init scripts (SHA-256 ${carried}) into ${dir}\n`);
    return 0;
  },
};
