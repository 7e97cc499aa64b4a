/** What `up`, `down` and `status` say about the services, and how they report while they work. */
import type { ServiceName } from './services.js';

/** How one service of the local stack is doing. */
export interface ServiceStatus {
  name: ServiceName;
  /** Which copy: `<name>`, or `<name>-<n>` in cluster mode. */
  instance: string;
  /** gRPC address. */
  address: string;
  /**
   * `running`: started by `tollgate up` and serving; `starting`: alive, not serving yet;
   * `external`: something not started by `up` serves at the address; `stopped`.
   */
  state: 'running' | 'starting' | 'external' | 'stopped';
  pid?: number;
  startedAt?: string;
  log: string;
  /** What `up` did (`up` only): started, restarted, already running, or adopted. */
  action?: 'started' | 'restarted' | 'already_running' | 'external';
  /**
   * Why it was restarted: its `TOLLGATE_*` settings (or the issuer key it trusts) changed, it
   * (or a package it uses) was rebuilt since it started, or its address changed.
   */
  reason?: 'settings' | 'rebuilt' | 'address';
  /** With reason `settings`: which ones. */
  changed?: string[];
}

/** Reports from `up`/`down` while they work. */
export interface StackProgress {
  step(label: string): {
    update(detail: string): void;
    done(note?: string): void;
    fail(note?: string): void;
  };
  warn(text: string): void;
}
