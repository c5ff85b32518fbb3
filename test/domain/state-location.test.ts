import { describe, expect, it } from 'vitest';
import { stateLocation } from '../../src/domain/state-location.js';

const at = (backendConfig: Record<string, string>, workspace?: string) => ({
  dir: '/repo/app',
  backendConfig,
  ...(workspace ? { workspace } : {}),
});

describe('stateLocation', () => {
  it.each([
    ['local default', undefined, at({}), 'local:/repo/app/terraform.tfstate'],
    ['local path', { type: 'local', settings: { path: '../shared.tfstate' } }, at({}), 'local:/repo/shared.tfstate'],
    ['local workspace', undefined, at({}, 'blue'), 'local:/repo/app/terraform.tfstate.d/blue/terraform.tfstate'],
    ['s3 merged', { type: 's3', settings: { bucket: 'b', key: 'old' } }, at({ key: 'k' }), 's3::b/k'],
    ['s3 workspace', { type: 's3', settings: {} }, at({ bucket: 'b', key: 'k' }, 'w'), 's3::b/env:/w/k'],
    [
      's3 workspace prefix',
      { type: 's3', settings: { workspace_key_prefix: 'ws' } },
      at({ bucket: 'b', key: 'k' }, 'w'),
      's3::b/ws/w/k',
    ],
    ['gcs', { type: 'gcs', settings: { bucket: 'b', prefix: 'p' } }, at({}), 'gcs:b/p/default.tfstate'],
    [
      'azurerm workspace',
      { type: 'azurerm', settings: { storage_account_name: 'a', container_name: 'c', key: 'k' } },
      at({}, 'w'),
      'azurerm:a/c/kenv:w',
    ],
  ])('%s', (_, backend, stack, key) => {
    expect(stateLocation(backend, stack)?.key).toBe(key);
  });

  it("names an S3 backend's object, workspace included: what S3's change events name", () => {
    expect(stateLocation({ type: 's3', settings: { bucket: 'b', key: 'k' } }, at({}))?.s3Object).toEqual({
      bucket: 'b',
      key: 'k',
    });
    expect(stateLocation({ type: 's3', settings: {} }, at({ bucket: 'b', key: 'k' }, 'w'))?.s3Object).toEqual({
      bucket: 'b',
      key: 'env:/w/k',
    });
    expect(stateLocation(undefined, at({}))?.s3Object).toBeUndefined();
  });

  it('is unknown when the settings that say where are missing, or for another backend', () => {
    expect(stateLocation({ type: 's3', settings: { bucket: 'b' } }, at({}))).toBeUndefined();
    expect(stateLocation({ type: 'remote', settings: { organization: 'o' } }, at({}))).toBeUndefined();
  });
});
