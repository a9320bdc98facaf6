import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  conditionFromAsb,
  conditionFromRealTime,
  processIdRequest,
  takeEscposAnswer,
} from '../../agent/core/printers/escpos-status.ts';
import { asbLength, conditionFromStarAsb } from '../../agent/core/printers/starprnt-status.ts';
import { parseHostStatus, takeHostStatus } from '../../agent/core/printers/zpl-status.ts';
import type { PrinterSimulator } from '../helpers/printer-simulators/simulator.ts';
import { StarprntSimulator } from '../helpers/printer-simulators/starprnt.ts';
import { ZplSimulator } from '../helpers/printer-simulators/zpl.ts';

/**
 * The status bytes as the vendors' references lay them out, read by the agent's decoders
 * without a simulator in between (so that a decoder and a simulator cannot share one misreading
 * unseen), and the StarPRNT and ZPL simulators' own answers at the byte level.
 */

describe('ESC/POS status bytes (Epson command reference)', () => {
  it('DLE EOT: an out-of-paper printer (1: 0x1A offline; 2: 0x32 stopped by paper end; 4: 0x7E near end and end)', () => {
    expect(conditionFromRealTime([0x1a, 0x32, 0x12, 0x7e])).toMatchObject({
      offline: true,
      paperEnd: true,
      paperNearEnd: true,
      coverOpen: false,
      errors: [],
    });
  });

  it('DLE EOT: cover open (2: bit 2), auto-cutter error (3: bit 3), near end only (4: 0x1E)', () => {
    expect(conditionFromRealTime([0x1a, 0x16, 0x12, 0x12]).coverOpen).toBe(true);
    expect(conditionFromRealTime([0x1a, 0x52, 0x1a, 0x12]).errors).toEqual(['auto-cutter error']);
    expect(conditionFromRealTime([0x12, 0x12, 0x12, 0x1e])).toMatchObject({
      offline: false,
      paperEnd: false,
      paperNearEnd: true,
    });
  });

  it('ASB: four bytes, the first 0xx1xx00 (bit 3 offline, bit 5 cover), the third the roll paper', () => {
    expect(conditionFromAsb(Buffer.from([0x38, 0x00, 0x0c, 0x00]))).toMatchObject({
      offline: true,
      coverOpen: true,
      paperEnd: true,
    });
    expect(takeEscposAnswer(Buffer.from([0x10, 0, 3, 0, 0x12]))).toEqual({
      used: 4,
      value: { kind: 'asb', bytes: Buffer.from([0x10, 0, 3, 0]) },
    });
  });

  it('GS ( H fn 48: the request and its answer 37 22 d1..d4 00', () => {
    expect(processIdRequest('0042')).toEqual(
      Buffer.from([0x1d, 0x28, 0x48, 0x06, 0x00, 0x30, 0x30, 0x30, 0x30, 0x34, 0x32]),
    );
    expect(takeEscposAnswer(Buffer.from([0x37, 0x22, 0x30, 0x30, 0x34, 0x32, 0x00]))).toEqual({
      used: 7,
      value: { kind: 'process-id', id: '0042' },
    });
    // Another "header to NUL" answer is skipped whole.
    expect(takeEscposAnswer(Buffer.from([0x37, 0x21, 0x41, 0x00, 0x12]))).toEqual({ used: 4 });
  });
});

describe('StarPRNT ASB (Star command specification)', () => {
  it('header 1 gives the length, headers included', () => {
    expect(asbLength(0x0f)).toBe(7);
    expect(asbLength(0x21)).toBe(8);
    expect(asbLength(0x23)).toBe(9);
    // A status byte (bits 0, 4 and 7 clear) is no header.
    expect(asbLength(0x28)).toBeNull();
  });

  it('status 1 offline and cover, status 4 near end and paper empty', () => {
    const block = Buffer.from([0x23, 0x02, 0x28, 0x00, 0x00, 0x0c, 0, 0, 0]);
    expect(conditionFromStarAsb(block)).toMatchObject({
      offline: true,
      coverOpen: true,
      paperEnd: true,
      paperNearEnd: true,
    });
  });
});

describe('ZPL ~HS (Zebra programming guide)', () => {
  const answer = Buffer.from(
    '\x02030,1,0,1218,002,0,0,1,000,0,0,0\x03\r\n\x02001,0,1,0,0,2,6,0,00000003,1,000\x03\r\n\x021234,0\x03\r\n',
    'latin1',
  );

  it('three STX … ETX CR LF strings: paper out, formats waiting, partial format, head up, labels remaining', () => {
    const taken = takeHostStatus(answer);
    expect(taken?.used).toBe(answer.length);
    const status = parseHostStatus(taken?.value as string[]);
    expect(status).toMatchObject({
      formatsInBuffer: 2,
      partialFormat: true,
      labelsRemaining: 3,
      condition: { paperEnd: true, coverOpen: true, paused: false, ribbonOut: false },
    });
  });

  it('waits for the third string', () => {
    expect(takeHostStatus(answer.subarray(0, answer.length - 5))).toBeNull();
  });
});

const started: PrinterSimulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((simulator) => simulator.stop()));
});

async function talk(simulator: PrinterSimulator, send: Buffer[], answerBytes: number) {
  const socket = connect(simulator.port, '127.0.0.1');
  const answers: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => answers.push(chunk));
  await new Promise((resolve) => socket.once('connect', resolve));
  for (const bytes of send) socket.write(bytes);
  await expect.poll(() => Buffer.concat(answers).length).toBeGreaterThanOrEqual(answerBytes);
  socket.destroy();
  return Buffer.concat(answers);
}

describe('the StarPRNT and ZPL simulators at the byte level', () => {
  it('StarPRNT: ESC ACK SOH is answered at once, even with the paper out', async () => {
    const printer = await new StarprntSimulator().start();
    started.push(printer);
    printer.set({ paperEnd: true });
    const answer = await talk(printer, [Buffer.from('text\n'), Buffer.from([0x1b, 0x06, 0x01])], 9);
    expect(answer).toEqual(Buffer.from([0x23, 0x02, 0x08, 0x00, 0x00, 0x08, 0, 0, 0]));
    expect(printer.printedBytes).toBe(0);
  });

  it('ZPL: ~HS is answered while a format waits, and counts it', async () => {
    const printer = await new ZplSimulator().start();
    started.push(printer);
    printer.paused = true;
    const answer = await talk(printer, [Buffer.from('^XA^FDone^FS^XZ~HS')], 60);
    const status = parseHostStatus(takeHostStatus(answer)?.value as string[]);
    expect(status).toMatchObject({ formatsInBuffer: 1, condition: { paused: true } });
  });
});
