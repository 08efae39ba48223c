/**
 * Live frames for connected WebSockets. The delivery-queue consumer publishes each event it handles straight to
 * the sockets of that tenant that are connected to this process: one hop, no queue, no retry (a
 * socket that is behind is the socket's problem; durable delivery is what webhooks are for).
 */
export interface FrameSink {
  /** Sends one frame; must not throw (a closed socket drops it). */
  send(frame: string): void;
}

/** What the delivery-queue consumer publishes frames to: the sockets themselves, or a thread's link to them. */
export interface FramePublisher {
  hasSubscribers(tenantId: string): boolean;
  publish(tenantId: string, frame: string): void;
}

/** Told when a tenant gets its first socket (true) or loses its last (false). */
export type SubscribersListener = (tenantId: string, subscribed: boolean) => void;

export class FrameFanout implements FramePublisher {
  private readonly sinks = new Map<string, Set<FrameSink>>();
  private listener: SubscribersListener | null = null;

  /**
   * Follows which tenants have sockets here, starting with those that have them now: a consumer on
   * another thread asks for frames of those tenants only.
   */
  watchSubscribers(listener: SubscribersListener): void {
    this.listener = listener;
    for (const tenantId of this.sinks.keys()) listener(tenantId, true);
  }

  /** Registers a socket for a tenant's frames; returns the function that unregisters it. */
  subscribe(tenantId: string, sink: FrameSink): () => void {
    let set = this.sinks.get(tenantId);
    if (!set) {
      set = new Set();
      this.sinks.set(tenantId, set);
      this.listener?.(tenantId, true);
    }
    set.add(sink);
    return () => {
      if (!set.delete(sink) || set.size > 0) return;
      this.sinks.delete(tenantId);
      this.listener?.(tenantId, false);
    };
  }

  hasSubscribers(tenantId: string): boolean {
    return this.sinks.has(tenantId);
  }

  publish(tenantId: string, frame: string): void {
    for (const sink of this.sinks.get(tenantId) ?? []) sink.send(frame);
  }
}
