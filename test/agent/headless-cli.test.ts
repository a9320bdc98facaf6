import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { AgentFlags } from '../../agent/headless/agent-command.ts';
import { buildAgentProgram } from '../../agent/headless/main.ts';
import { buildProgram } from '../../cli/main.ts';

const agentCommand = (program: Command) =>
  program.commands.find((command) => command.name() === 'agent')!;
/**
 * The headless bundle's entry (agent/headless/main.ts) runs `shopdesk agent` without the rest
 * of the CLI, so that the agent's process loads none of the server's code; the full CLI adds
 * the same command (agent/headless/agent-command.ts).
 */
describe('shopdesk agent in the headless entry', () => {
  it('is the full CLI`s agent command: the same help and flags', () => {
    const full = agentCommand(buildProgram());
    const headless = agentCommand(buildAgentProgram());
    expect(full.description()).toContain('run the print agent headless');
    expect(headless.helpInformation()).toBe(full.helpInformation());
  });

  it('hands the agent the flags as the full CLI parses them (routes collected, --name trimmed)', async () => {
    const argv = [
      'node',
      'shopdesk',
      'agent',
      '--server',
      'http://h:1',
      '--route',
      'a=PDF',
      '--route',
      'b=folder:/x',
      '--name',
      '  Till 2 ',
      '--token-file',
      '/t',
    ];
    let seen: AgentFlags | undefined;
    await buildAgentProgram(async (flags) => {
      seen = flags;
    }).parseAsync(argv);
    expect(seen).toEqual({
      server: 'http://h:1',
      route: ['a=PDF', 'b=folder:/x'],
      profile: [],
      name: 'Till 2',
      tokenFile: '/t',
    });
  });

  it.each([
    ['   ', '--name must not be empty.'],
    ['x'.repeat(256), '--name must be at most 255 characters.'],
  ])('refuses --name %j as the full CLI does', async (name, message) => {
    const errors: string[] = [];
    const program = buildAgentProgram(async () => {});
    program.commands[0]!.configureOutput({
      writeErr: (text) => errors.push(text),
      outputError: (text, write) => write(text),
    });
    await expect(
      program.parseAsync(['node', 'shopdesk', 'agent', '--server', 'http://h:1', '--name', name]),
    ).rejects.toThrow(message);
    expect(errors.join('')).toContain(message);
  });
});
