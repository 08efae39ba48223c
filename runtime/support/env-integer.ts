/**
 * Reads integer environment variables, collecting problems instead of throwing, so a configuration
 * reports every bad variable at once. Unset or empty: the fallback.
 */
export function integerReader(env: NodeJS.ProcessEnv, problems: string[]) {
  return (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got '${raw}')`);
      return fallback;
    }
    return value;
  };
}
