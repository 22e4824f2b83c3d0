import { describe, expect, it } from 'vitest';
import { canonicalJson } from './request-fingerprint.js';

describe('canonicalJson', () => {
  it('gives one text for every key order and spacing of the same value', () => {
    const a = JSON.parse('{"b":2,"a":{"y":[1,{"q":1,"p":2}],"x":null},"c":"é"}');
    const b = JSON.parse('{ "c" : "\\u00e9", "a" : { "x" : null, "y" : [ 1, { "p": 2, "q": 1 } ] }, "b" : 2 }');
    expect(canonicalJson(a)).toBe('{"a":{"x":null,"y":[1,{"p":2,"q":1}]},"b":2,"c":"é"}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
  });

  it('keeps what is part of the value: array order, types, values', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(canonicalJson({ 'a"b': 'x\ny' })).toBe('{"a\\"b":"x\\ny"}');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson('s')).toBe('"s"');
  });
});
