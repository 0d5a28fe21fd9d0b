import { Command } from './io';
import { renderCommand } from './render-command';

/** Every subcommand of `kube-inference`, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [renderCommand];
