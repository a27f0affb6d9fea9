/** The count of wrong credentials per client address, on a clock moved by hand. */
import { describe, expect, it } from 'vitest'
import { addressKey, createCredentialThrottle } from '../../src/http/credential-throttle.ts'

describe('createCredentialThrottle', () => {
  it('lets the limit through per window, then tells the whole seconds left until the window ends', () => {
    let now = 50_000
    const throttle = createCredentialThrottle({ now: () => now, limit: 3, windowMs: 10_000 })
    expect([throttle.fail('a'), throttle.fail('a'), throttle.fail('a')]).toEqual([undefined, undefined, undefined])
    expect(throttle.fail('a')).toBe(10)
    now += 100
    expect(throttle.fail('a')).toBe(10)
    now += 8_950
    expect(throttle.fail('a')).toBe(1)
    // At the instant the window ends, a new one begins with this failure.
    now = 60_000
    expect(throttle.fail('a')).toBeUndefined()
    expect([throttle.fail('a'), throttle.fail('a'), throttle.fail('a')]).toEqual([undefined, undefined, 10])
    // Every address has its own count.
    expect(throttle.fail('b')).toBeUndefined()
  })

  it('a limit of 0 throttles nothing', () => {
    const throttle = createCredentialThrottle({ now: () => 0, limit: 0, windowMs: 10_000 })
    for (let i = 0; i < 100; i++) expect(throttle.fail('a')).toBeUndefined()
  })

  it('keeps at most maxAddresses windows: ended ones are forgotten first, then the oldest', () => {
    let now = 0
    const throttle = createCredentialThrottle({ now: () => now, limit: 1, windowMs: 1_000, maxAddresses: 2 })
    throttle.fail('a')
    throttle.fail('b')
    expect(throttle.fail('b')).toBe(1)
    // 'a' still in its window, 'b' too: a third address pushes out the oldest, 'a'.
    throttle.fail('c')
    expect(throttle.fail('a')).toBeUndefined()
    // 'b' was pushed out by 'a' in turn; 'c' is still counted.
    expect(throttle.fail('c')).toBe(1)
    now = 5_000
    throttle.fail('d')
    expect(throttle.fail('d')).toBe(1)
  })
})

describe('addressKey', () => {
  it('IPv4 as it is, IPv4 mapped into IPv6 as IPv4, IPv6 by its /64', () => {
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7')
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7')
    expect(addressKey('2001:db8:1:2::5')).toBe('2001:db8:1:2::/64')
    expect(addressKey('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64')
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(addressKey('::1')).toBe('0:0:0:0::/64')
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
  })
})
