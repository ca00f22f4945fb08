import type { OptionValues } from './command';

export function stringOption(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function listOption(values: OptionValues, name: string): string[] {
  const v = values[name];
  if (Array.isArray(v)) return v;
  return typeof v === 'string' ? [v] : [];
}

export function flagOption(values: OptionValues, name: string): boolean {
  return values[name] === true;
}
