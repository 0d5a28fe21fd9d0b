import { Command } from './io';
import { renderCommand } from './render-command';
import { statusCommand } from './status-command';
import { validateCommand } from './validate-command';

/** Every subcommand of `kube-inference`, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [renderCommand, validateCommand, statusCommand];
