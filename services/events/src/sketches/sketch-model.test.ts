import { addToRegisters, DISTINCT_SKETCH } from './sketch-model';

/** The register one hash raises, and to what. */
function registerOf(hash: number): [index: number, value: number] {
  const registers = new Uint8Array(DISTINCT_SKETCH.registers);
  addToRegisters(registers, hash);
  const index = registers.findIndex((v) => v !== 0);
  return [index, registers[index]!];
}

describe('addToRegisters', () => {
  test('when a hash is placed, then its top 14 bits pick the register and the leading zeros of the other 38 bits plus one set it', () => {
    expect(registerOf(0)).toEqual([0, 39]);
    expect(registerOf(1)).toEqual([0, 38]);
    expect(registerOf(2 ** 31)).toEqual([0, 7]);
    expect(registerOf(2 ** 32 - 1)).toEqual([0, 7]);
    expect(registerOf(2 ** 32)).toEqual([0, 6]);
    expect(registerOf(2 ** 37)).toEqual([0, 1]);
    expect(registerOf(2 ** 38)).toEqual([1, 39]);
    expect(registerOf(2 ** 38 + 2 ** 36)).toEqual([1, 2]);
    expect(registerOf(2 ** 52 - 1)).toEqual([16383, 1]);
    expect(registerOf(16383 * 2 ** 38)).toEqual([16383, 39]);
  });

  test('when a register already holds more, then a smaller value leaves it', () => {
    const registers = new Uint8Array(DISTINCT_SKETCH.registers);
    addToRegisters(registers, 1);
    addToRegisters(registers, 2 ** 37);
    expect(registers[0]).toBe(38);
  });
});
