/** GOV_ED25519: which library signs, refused when misspelt or when it asks for what is not installed. */
import { ed25519Implementation } from '../../merkle-core';
import { ConfigError, loadConfig } from './config';

describe('GOV_ED25519', () => {
  it('given nothing, then libsodium signs wherever sodium-native is installed, else node:crypto', () => {
    expect(loadConfig({}).ed25519).toBe(ed25519Implementation({}));
  });

  it('given node:crypto, then node:crypto signs', () => {
    expect(loadConfig({ GOV_ED25519: 'node:crypto' }).ed25519).toBe('node:crypto');
  });

  it('given libsodium, then libsodium signs, or the configuration is refused where it is not installed', () => {
    if (ed25519Implementation({}) === 'libsodium')
      expect(loadConfig({ GOV_ED25519: 'libsodium' }).ed25519).toBe('libsodium');
    else
      expect(() => loadConfig({ GOV_ED25519: 'libsodium' })).toThrow(
        /sodium-native package is not installed/,
      );
  });

  it('given a misspelt value, then the configuration is refused naming the variable and its values', () => {
    expect(() => loadConfig({ GOV_ED25519: 'sodium' })).toThrow(ConfigError);
    expect(() => loadConfig({ GOV_ED25519: 'sodium' })).toThrow(
      "GOV_ED25519 must be libsodium or node:crypto (got 'sodium')",
    );
  });
});
