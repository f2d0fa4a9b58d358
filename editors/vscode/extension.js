// The restartkit extension: a thin client. The language server (`restartkit lsp`) answers
// everything: diagnostics, quick fixes, hover, completion, the lenses; this file starts it, passes
// the settings, and asks for a container and an exit code when a "What if" lens is clicked.
'use strict';
const vscode = require('vscode');
const { LanguageClient, ExecuteCommandRequest } = require('vscode-languageclient/node');
const { serverCommand } = require('./server.js');

let client;
let output;

/** The server's settings: what `restartkit.*` holds, as the server reads it (initializationOptions). */
function settings() {
  const c = vscode.workspace.getConfiguration('restartkit');
  return { kubernetesVersion: c.get('kubernetesVersion') ?? null, featureGates: c.get('featureGates') ?? {}, debounceMs: c.get('debounceMs') };
}

async function start(context) {
  const found = serverCommand({ configured: vscode.workspace.getConfiguration('restartkit').get('server.path'), extensionPath: context.extensionPath });
  output.appendLine(`restartkit lsp: ${found.command} ${found.args.join(' ')} (${found.from})`);
  client = new LanguageClient('restartkit', 'restartkit', { command: found.command, args: found.args }, {
    documentSelector: [{ language: 'yaml' }, { language: 'json' }],
    synchronize: { configurationSection: 'restartkit' },
    initializationOptions: settings(),
    outputChannel: output,
    middleware: {
      // The server's lenses run its commands with a default container and exit code; here they ask.
      provideCodeLenses: async (document, token, next) => {
        const lenses = (await next(document, token)) ?? [];
        for (const lens of lenses) {
          if (lens.command?.command === 'restartkit.whatIf') lens.command.command = 'restartkit.whatIfPrompt';
          else if (lens.command?.command === 'restartkit.backoffCurve') lens.command.command = 'restartkit.showBackoffCurve';
        }
        return lenses;
      },
    },
  });
  await client.start();
}

/** Runs a server command quietly and shows its answer in the output channel. */
async function run(command, args) {
  const answer = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [{ ...args, quiet: true }] });
  output.appendLine(`\n${answer.title}\n${answer.text}`);
  output.show(true);
  vscode.window.showInformationMessage(answer.text.split('\n').slice(0, 3).join(' · '));
}

function lensArgs(args) {
  const editor = vscode.window.activeTextEditor;
  return args ?? { uri: editor?.document.uri.toString(), document: 0, containers: [] };
}

async function activate(context) {
  output = vscode.window.createOutputChannel('restartkit');
  context.subscriptions.push(
    vscode.commands.registerCommand('restartkit.whatIfPrompt', async (args) => {
      const a = lensArgs(args);
      const container = a.containers?.length > 1
        ? await vscode.window.showQuickPick(a.containers, { placeHolder: 'Which container exits?' })
        : a.containers?.[0];
      const code = await vscode.window.showInputBox({ prompt: `Exit code of ${container ?? 'the container'}`, value: '1', validateInput: (v) => (/^-?\d+$/.test(v) ? null : 'an integer') });
      if (code === undefined) return;
      await run('restartkit.whatIf', { ...a, container, exitCode: Number(code) });
    }),
    vscode.commands.registerCommand('restartkit.showBackoffCurve', (args) => run('restartkit.backoffCurve', lensArgs(args))),
    vscode.commands.registerCommand('restartkit.restartServer', async () => {
      await client?.stop();
      await start(context);
    }),
  );
  await start(context);
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
