/** The environment variable a person would keep a terraform variable's value in: `db_password` -> `DB_PASSWORD`. */
export const variableEnvName = (variable: string): string => variable.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
