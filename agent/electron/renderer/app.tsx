import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { RecentJobs } from '../../../ui/recent-jobs.tsx';
import { Notices, StatusPill } from '../../../ui/status-block.tsx';
import type { AgentStatus, LogLine } from '../../core/status.ts';
import type { SettingsView } from '../common/ipc.ts';
import { bridge, inWords, settle } from './bridge.ts';
import { LogView } from './log-view.tsx';
import { PrintersCard } from './printers-card.tsx';
import { ServerForm } from './server-form.tsx';
import { noticesOf, pillOf } from './tray-status.ts';

/**
 * The settings and status window, built from the components the web console uses too (ui/).
 * Everything it does goes through `window.shopdesk`, the preload's bridge; it shows what the
 * main process pushes, and the routes editor holds its own draft until saved.
 */

const logLimit = 200;

function App() {
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const [status, setStatus] = useState<AgentStatus | null>(null);
  const [log, setLog] = useState<LogLine[]>([]);
  const [jobsProblem, setJobsProblem] = useState('');
  useEffect(() => {
    const stops = [
      bridge.onStatusChanged(setStatus),
      bridge.onSettingsChanged(setSettings),
      bridge.onLogAppended((line) => setLog((lines) => [...lines, line].slice(-logLimit))),
    ];
    void bridge.getSnapshot().then((snapshot) => {
      setStatus(snapshot.status);
      setSettings(snapshot.settings);
      setLog(snapshot.logTail.slice(-logLimit));
    });
    return () => {
      for (const stop of stops) stop();
    };
  }, []);
  const pill = settings ? pillOf(status) : { words: 'Loading…', tone: 'idle' as const };
  const togglePause = async () => {
    const result = await settle(() =>
      status?.paused ? bridge.resumeAgent() : bridge.pauseAgent(),
    );
    if (!result.ok) setJobsProblem(result.message);
  };
  return (
    <>
      <header class="topbar">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true" />
          <span>ShopDesk Print Agent</span>
        </div>
        <div class="topbar-status">
          <StatusPill words={pill.words} tone={pill.tone} />
          {status && (
            <button
              id="pause-toggle"
              type="button"
              class="button"
              onClick={() => void togglePause()}
            >
              {status.paused ? 'Resume printing' : 'Pause printing'}
            </button>
          )}
        </div>
      </header>
      <Notices label="What needs attention" notices={noticesOf(settings, status)} />
      <main class="layout">
        <h1 class="visually-hidden">ShopDesk Print Agent</h1>
        <section class="card card-wide" aria-labelledby="jobs-title">
          <div class="card-head">
            <h2 id="jobs-title">Recent jobs</h2>
          </div>
          <RecentJobs
            jobs={status?.recentJobs ?? []}
            retry={(jobId) => inWords(() => bridge.retryJob(jobId))}
            reprint={(jobId) => inWords(() => bridge.reprintJob(jobId))}
          />
          {jobsProblem && <p class="message message-bad">{jobsProblem}</p>}
        </section>
        <PrintersCard settings={settings} recentJobs={status?.recentJobs ?? []} />
        <ServerForm settings={settings} />
        <LogView lines={log} onProblem={setJobsProblem} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
