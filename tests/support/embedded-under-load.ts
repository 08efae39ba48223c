/**
 * The scene of the embedded server's fault tests: the all-in-one server as its own process on a data
 * folder, a tenant without trial caps subscribed to `leaf_admitted`, and admission load against it
 * that survives the server being killed and started again (on the same port).
 */
import path from 'node:path';
import { AdmissionLoad } from './admission-load';
import { freePort } from './children';
import { expectPromisesKept, type PromiseReport } from './fault-invariants';
import { GovClient, type Registration } from './governance-client';
import {
  isRunning,
  killHard,
  type ServiceProcess,
  startEmbeddedProcess,
  stopGracefully,
  waitHealthy,
} from './service-processes';
import { loadReadyTenant, WEBHOOK_SECRET } from './tenant-setup';
import { WebhookReceiver } from './webhook-receiver';

export class EmbeddedUnderLoad {
  private constructor(
    private readonly dataDir: string,
    private readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
    public server: ServiceProcess,
    readonly client: GovClient,
    readonly receiver: WebhookReceiver,
    readonly tenant: Registration,
    readonly load: AdmissionLoad,
  ) {}

  /** Starts the server on `dataDir` (`env` over the defaults), sets up the tenant, starts the load. */
  static async start(
    dataDir: string,
    env: NodeJS.ProcessEnv = {},
    concurrency = 8,
  ): Promise<EmbeddedUnderLoad> {
    const port = await freePort();
    const receiver = await WebhookReceiver.start();
    const server = startEmbeddedProcess(dataDir, port, env);
    await waitHealthy(server);
    const client = new GovClient(server.url);
    const tenant = await loadReadyTenant(client, client, path.join(dataDir, 'events.db'), receiver.url);
    let scene: EmbeddedUnderLoad | null = null;
    const load = new AdmissionLoad({
      targets: () => (scene && isRunning(scene.server) ? [client] : []),
      apiKey: tenant.api_key,
      concurrency,
      log: () => client,
    });
    scene = new EmbeddedUnderLoad(dataDir, port, env, server, client, receiver, tenant, load);
    load.start();
    return scene;
  }

  /** SIGKILLs the server and starts it again on the same data and port; resolves once it is healthy. */
  async killAndRestart(): Promise<void> {
    await killHard(this.server);
    this.server = startEmbeddedProcess(this.dataDir, this.port, this.env);
    await waitHealthy(this.server);
  }

  /** The five promises, for everything the load was answered (call after `load.stop()`). */
  promisesKept(): Promise<PromiseReport> {
    return expectPromisesKept({
      log: this.client,
      admitted: this.load.admitted,
      servedHeads: this.load.servedHeads,
      webhooks: { tenantId: this.tenant.tenant_id, receiver: this.receiver, secret: WEBHOOK_SECRET },
      audit: { dataDir: this.dataDir },
    });
  }

  /** Stops the load, the server (gracefully) and the receiver. */
  async dispose(): Promise<void> {
    await this.load.stop();
    await stopGracefully(this.server);
    await this.receiver.close();
  }
}
