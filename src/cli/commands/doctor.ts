import type { CliIo } from '../io.js';

export const DOCTOR_USAGE = 'driftgate doctor [--config FILE]';

export async function doctorCommand(_args: string[], _io: CliIo): Promise<number> {
  return 1;
}
