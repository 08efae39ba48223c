/**
 * Live frames for connected WebSockets. The dispatcher publishes each event it handles straight to
 * the sockets of that tenant that are connected to this process: one hop, no queue, no retry (a
 * socket that is behind is the socket's problem; durable delivery is what webhooks are for).
 */
export interface FrameSink {
  /** Sends one frame; must not throw (a closed socket drops it). */
  send(frame: string): void;
}

export class FrameFanout {
  private readonly sinks = new Map<string, Set<FrameSink>>();

  /** Registers a socket for a tenant's frames; returns the function that unregisters it. */
  subscribe(tenantId: string, sink: FrameSink): () => void {
    let set = this.sinks.get(tenantId);
    if (!set) {
      set = new Set();
      this.sinks.set(tenantId, set);
    }
    set.add(sink);
    return () => {
      set.delete(sink);
      if (set.size === 0) this.sinks.delete(tenantId);
    };
  }

  hasSubscribers(tenantId: string): boolean {
    return this.sinks.has(tenantId);
  }

  publish(tenantId: string, frame: string): void {
    for (const sink of this.sinks.get(tenantId) ?? []) sink.send(frame);
  }
}
