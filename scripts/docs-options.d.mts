// Types of scripts/docs-options.mjs, for the tests that read --help with it (test/docs.test.ts).
export interface HelpOption {
  name: string;
  description: string;
  type?: string;
  choices?: string[];
  default?: string;
  required?: boolean;
}
export const ROOT: string;
export const CLI: string;
export function cliOutput(args: string[]): string;
export function helpOptions(help: string): HelpOption[];
export function commandOptions(command: string): HelpOption[];
export function optionsTable(options: HelpOption[]): string;
