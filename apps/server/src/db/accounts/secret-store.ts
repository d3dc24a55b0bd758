import { randomBytes } from 'node:crypto';
import type { SecretStore } from '../interface.js';
import { guarded, type Backend } from '../backend.js';

export class KyselySecretStore implements SecretStore {
  private readonly secrets = new Map<string, string>();

  constructor(private readonly backend: Backend) {}

  serverSecret(name: string): Promise<string> {
    return guarded(this.backend, async () => {
      const cached = this.secrets.get(name);
      if (cached) return cached;
      const db = this.backend.db;
      const stored = () =>
        this.backend.read(db.selectFrom('server_secrets').select('value').where('name', '=', name).compile());
      // Read first: every start but the very first needs no write, so a server starts even while another
      // process (a long import) holds the write lock.
      let [row] = await stored();
      if (!row) {
        // Insert-if-absent then read back, so concurrent first starts of several instances agree on one value.
        await db
          .insertInto('server_secrets')
          .values({ name, value: randomBytes(32).toString('base64url') })
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
        [row] = await stored();
      }
      if (!row) throw new Error(`the server secret ${name} was not stored`);
      this.secrets.set(name, row.value);
      return row.value;
    });
  }
}
