// Which restartkit runs as the language server. Kept apart from extension.js (no `vscode` here)
// so that the choice is tested without VS Code.
'use strict';
const path = require('node:path');
const fs = require('node:fs');

/** The directory name of this platform's bundled binary, as `vsce package --target` names targets. */
function target(platform = process.platform, arch = process.arch) {
  return `${platform}-${arch}`;
}

/** Whether `name` is an executable file on PATH. */
function onPath(name, envPath = process.env.PATH ?? '') {
  return envPath.split(path.delimiter).filter(Boolean).some((dir) => {
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The command that starts the server: the configured path; else the binary bundled in the
 * extension for this platform (bin/<platform>-<arch>/restartkit); else `restartkit` on PATH (the
 * static CLI or the Python wheel's console command); else the wheel as `python3 -m restartkit`.
 */
function serverCommand({ configured, extensionPath, platform, arch, exists = fs.existsSync, which = onPath }) {
  const exe = (platform ?? process.platform) === 'win32' ? 'restartkit.exe' : 'restartkit';
  if (configured) return { command: configured, args: ['lsp'], from: 'restartkit.server.path' };
  const bundled = path.join(extensionPath, 'bin', target(platform, arch), exe);
  if (exists(bundled)) return { command: bundled, args: ['lsp'], from: 'bundled' };
  if (which(exe)) return { command: exe, args: ['lsp'], from: 'PATH' };
  return { command: 'python3', args: ['-m', 'restartkit', 'lsp'], from: 'python3 -m restartkit' };
}

module.exports = { serverCommand, target };
