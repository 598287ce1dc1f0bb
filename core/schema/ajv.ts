/** One way to get an ajv instance for a JSON Schema dialect, with the string formats (uri, date-time, …) added. */
import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its function is the default export's `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

export type Dialect = 'draft-07' | '2020-12';

export function newAjv(dialect: Dialect, options: Options): Ajv {
  const ajv = dialect === 'draft-07' ? new Ajv(options) : (new Ajv2020(options) as unknown as Ajv);
  addFormats(ajv);
  return ajv;
}
