import type { Services } from '../../services.js';
import type { Output } from '../output.js';

/** Migrations run when services open; this command only says so. */
export function migrate(_services: Services, output: Output): number {
  output.result({ migrated: true }, 'Database is up to date.');
  return 0;
}
