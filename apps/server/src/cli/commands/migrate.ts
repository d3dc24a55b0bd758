import type { Services } from '../../services.js';
import type { Output } from '../output.js';
import { text } from '../printable.js';

/** Migrations run when services open; this command only says so. */
export function migrate(_services: Services, output: Output): number {
  output.result({ migrated: true }, text`Database is up to date.`);
  return 0;
}
