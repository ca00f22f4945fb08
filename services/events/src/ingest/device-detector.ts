import Bowser from 'bowser';
import { isbot } from 'isbot';
import type { DeviceType } from '@cm/contracts';

export interface DeviceInfo {
  device_type: DeviceType;
  bot: boolean;
}

const NO_AGENT: DeviceInfo = Object.freeze({ device_type: 'desktop', bot: false });

/** Bowser's platform type narrowed to the API's three device types: TVs and unknowns count as desktop. */
export function classifyUserAgent(userAgent: string): DeviceInfo {
  if (userAgent === '') return NO_AGENT;
  const type = Bowser.parse(userAgent).platform.type;
  return { device_type: type === 'mobile' || type === 'tablet' ? type : 'desktop', bot: isbot(userAgent) };
}

/**
 * Parsing a User-Agent costs ~10 us while real traffic repeats a few hundred agents over and
 * over, so verdicts are memoised in a bounded map (oldest entry evicted first).
 */
export class DeviceDetector {
  private readonly cache = new Map<string, DeviceInfo>();

  /** Agents longer than maxKeyLength are classified but not kept: the cache stays small in bytes too. */
  constructor(
    private readonly maxEntries = 5000,
    private readonly maxKeyLength = 512,
  ) {}

  detect(userAgent: string | undefined): DeviceInfo {
    if (!userAgent) return NO_AGENT;
    const hit = this.cache.get(userAgent);
    if (hit) return hit;
    const info = classifyUserAgent(userAgent);
    if (userAgent.length > this.maxKeyLength) return info;
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(userAgent, info);
    return info;
  }
}
