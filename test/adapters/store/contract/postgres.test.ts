import pg from 'pg';
import { openPostgresStore } from '../../../../src/adapters/store/postgres/open-postgres-store.js';
import { usePostgres } from '../../../helpers/postgres.js';
import { describeStoreContract } from './store-contract.js';

const server = usePostgres();
let url: string | undefined;

const current = () => {
  if (!url) throw new Error('no database yet: freshDatabase runs before each test');
  return url;
};

describeStoreContract('postgres', {
  async freshDatabase() {
    url = await server.createDatabase();
  },
  open: (options = {}) => openPostgresStore({ url: current(), poolSize: 4, ...options }),
  async execRaw(sql) {
    const client = new pg.Client({ connectionString: current() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  },
});
