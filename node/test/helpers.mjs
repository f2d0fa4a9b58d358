import { createRequire } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const require = createRequire(import.meta.url);
export const rk = require('../index.js');
export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
export const vectorDir = path.join(root, 'conformance', 'vectors');
export const vectorFiles = readdirSync(vectorDir).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(vectorDir, f));
export const vectors = vectorFiles.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')));

export function pod(spec = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      restartPolicy: 'Never',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      containers: [{ name: 'main', image: 'busybox', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' }],
      ...spec,
    },
  };
}

export function job(restartPolicy = 'Never') {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'train', namespace: 'default' },
    spec: {
      backoffLimit: 3,
      podFailurePolicy: {
        rules: [
          { action: 'FailJob', onExitCodes: { containerName: 'trainer', operator: 'In', values: [42] } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
        ],
      },
      template: { spec: { restartPolicy, containers: [{ name: 'trainer', image: 'trainer:1' }, { name: 'sidecar', image: 'proxy:1' }] } },
    },
  };
}

export const BAD_POD_YAML = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers: 5\n';
