import { plainNumbers, WholeFloat } from '../../src/io/scalars';

describe('plainNumbers', () => {
  test('a value without WholeFloats or bigints is returned as it is, every part the same object', () => {
    const value = { a: [1, 'x', { b: null }], c: { d: 2.5 } };
    expect(plainNumbers(value)).toBe(value);
  });

  test('WholeFloats and bigints become numbers in copies of the parts that hold them; other parts are shared', () => {
    const shared = { untouched: [1, 2] };
    const value = { first: 'x', shared, list: ['a', new WholeFloat(3), 4n], deep: { n: 9007199254740993n } };
    const plain = plainNumbers(value) as typeof value;
    expect(plain).toEqual({ first: 'x', shared: { untouched: [1, 2] }, list: ['a', 3, 4], deep: { n: 9007199254740992 } });
    expect(plain).not.toBe(value);
    expect(plain.shared).toBe(shared);
    expect(value.list[1]).toBeInstanceOf(WholeFloat);
    expect(Object.keys(plain)).toEqual(['first', 'shared', 'list', 'deep']);
  });

  test('a key __proto__ stays a key of the copy', () => {
    const value = JSON.parse('{"__proto__": {"x": 1}, "n": 0}');
    value.n = new WholeFloat(1);
    const plain = plainNumbers(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(plain, '__proto__')).toBe(true);
    expect(plain.n).toBe(1);
  });
});
