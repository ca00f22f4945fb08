// Rules over rendered manifests that a schema cannot express: objects that must find each other
// (selectors, names, ports), and the operational promises of docs/operations.md (probes, limits,
// security, shutdown budget, one address for the Events API). Pure: objects in, messages out.
// Used by scripts/check-k8s.mjs.

/** The process exits at the latest SHUTDOWN_TIMEOUT_MS + 5 s after SIGTERM (services' main.ts). */
const PROCESS_DEADLINE_MARGIN_MS = 5000;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 15000;
const PATH_TYPES = new Set(['Prefix', 'Exact', 'ImplementationSpecific']);

const id = (o) => `${o.kind}/${o.metadata?.name}`;
const matches = (selector = {}, labels = {}) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

/** The environment a container sees, resolved from the rendered ConfigMaps and Secrets. */
export function containerEnv(container, objects) {
  const find = (kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const dataOf = (kind, name) => {
    const o = find(kind, name);
    if (!o) return undefined;
    if (kind === 'ConfigMap') return o.data ?? {};
    const decoded = Object.entries(o.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]);
    return { ...Object.fromEntries(decoded), ...(o.stringData ?? {}) };
  };
  const env = {};
  const missing = [];
  for (const source of container.envFrom ?? []) {
    const [kind, ref] = source.configMapRef ? ['ConfigMap', source.configMapRef] : ['Secret', source.secretRef];
    const data = dataOf(kind, ref.name);
    if (data) Object.assign(env, data);
    else if (!ref.optional) missing.push(`${kind}/${ref.name}`);
  }
  for (const e of container.env ?? []) {
    if ('value' in e) env[e.name] = e.value;
    const ref = e.valueFrom?.configMapKeyRef ?? e.valueFrom?.secretKeyRef;
    if (!ref) continue;
    const kind = e.valueFrom.configMapKeyRef ? 'ConfigMap' : 'Secret';
    const value = dataOf(kind, ref.name)?.[ref.key];
    if (value !== undefined) env[e.name] = value;
    else if (!ref.optional) missing.push(`${kind}/${ref.name} key ${ref.key}`);
  }
  return { env, missing };
}

/** The tag of `registry:port/name:tag` (a digest counts as pinned); '' when there is none. */
function imageTag(image) {
  if (image.includes('@')) return 'digest';
  const last = image.slice(image.lastIndexOf('/') + 1);
  return last.includes(':') ? last.slice(last.indexOf(':') + 1) : '';
}

function checkContainer(c, pod, objects, fail) {
  const ports = new Set((c.ports ?? []).map((p) => p.name));
  const tag = imageTag(c.image);
  if (!tag || tag === 'latest') fail(`image ${c.image} has no pinned tag`);
  const sc = c.securityContext ?? {};
  if (sc.allowPrivilegeEscalation !== false) fail('allowPrivilegeEscalation must be false');
  if (sc.readOnlyRootFilesystem !== true) fail('readOnlyRootFilesystem must be true');
  if (sc.privileged === true) fail('privileged must not be true');
  if (!(sc.capabilities?.drop ?? []).includes('ALL')) fail('capabilities must drop ALL');
  for (const side of ['requests', 'limits']) {
    for (const r of ['cpu', 'memory']) if (!c.resources?.[side]?.[r]) fail(`resources.${side}.${r} missing`);
  }
  for (const [probe, path] of [
    ['livenessProbe', '/healthz'],
    ['readinessProbe', '/readyz'],
    ['startupProbe', '/healthz'],
  ]) {
    const get = c[probe]?.httpGet;
    if (!get) fail(`${probe} missing`);
    else if (get.path !== path) fail(`${probe} must GET ${path}, not ${get.path}`);
    else if (typeof get.port === 'string' && !ports.has(get.port))
      fail(`${probe} port ${get.port} is not a container port`);
  }
  const { env, missing } = containerEnv(c, objects);
  for (const m of missing) fail(`references missing ${m}`);
  const preStop = c.lifecycle?.preStop?.exec?.command;
  const preStopSeconds = preStop?.[0] === 'sleep' ? Number(preStop[1]) : 0;
  const shutdownMs = Number(env.SHUTDOWN_TIMEOUT_MS ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
  const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
  const neededMs = preStopSeconds * 1000 + shutdownMs + PROCESS_DEADLINE_MARGIN_MS;
  if (graceMs <= neededMs)
    fail(
      `terminationGracePeriodSeconds ${graceMs / 1000} s must exceed preStop + SHUTDOWN_TIMEOUT_MS + 5 s = ${neededMs / 1000} s`,
    );
}

function checkDeployment(d, objects, fail) {
  const pod = d.spec.template.spec;
  const labels = d.spec.template.metadata?.labels ?? {};
  if (!matches(d.spec.selector.matchLabels, labels)) fail('selector does not match the pod labels');
  if (pod.automountServiceAccountToken !== false)
    fail('automountServiceAccountToken must be false (no API access needed)');
  const psc = pod.securityContext ?? {};
  if (psc.runAsNonRoot !== true) fail('pod runAsNonRoot must be true');
  if (!Number.isInteger(psc.runAsUser) || psc.runAsUser === 0)
    fail('pod runAsUser must be a non-zero uid (the image user is a name)');
  if (psc.seccompProfile?.type !== 'RuntimeDefault') fail('pod seccompProfile must be RuntimeDefault');
  const annotations = d.spec.template.metadata?.annotations ?? {};
  const containerPorts = pod.containers.flatMap((c) => (c.ports ?? []).map((p) => String(p.containerPort)));
  if (annotations['prometheus.io/scrape'] !== 'true') fail('prometheus.io/scrape annotation missing');
  if (!containerPorts.includes(annotations['prometheus.io/port'])) fail('prometheus.io/port is not a container port');
  for (const c of pod.containers) checkContainer(c, pod, objects, (m) => fail(`container ${c.name}: ${m}`));
  const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && matches(o.spec.selector?.matchLabels, labels));
  if (!pdb) fail('no PodDisruptionBudget selects its pods');
  const hpa = objects.find(
    (o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef.name === d.metadata.name,
  );
  if (hpa && d.spec.replicas !== undefined)
    fail(`sets replicas although ${id(hpa)} scales it (every apply would reset the count)`);
}

const WORKLOADS = new Set(['Deployment', 'StatefulSet']);

function checkService(s, objects, fail) {
  const targets = objects.filter(
    (o) => WORKLOADS.has(o.kind) && matches(s.spec.selector, o.spec.template.metadata?.labels),
  );
  if (targets.length !== 1) return fail(`selector matches ${targets.length} workloads, expected 1`);
  const ports = new Set(
    targets[0].spec.template.spec.containers.flatMap((c) => (c.ports ?? []).flatMap((p) => [p.name, p.containerPort])),
  );
  for (const p of s.spec.ports)
    if (!ports.has(p.targetPort)) fail(`targetPort ${p.targetPort} is not a port of ${id(targets[0])}`);
}

/** A data store run as a StatefulSet (NATS): the same security posture, pinned image, limits and a PDB. */
function checkStatefulSet(st, objects, fail) {
  const pod = st.spec.template.spec;
  const labels = st.spec.template.metadata?.labels ?? {};
  if (!matches(st.spec.selector.matchLabels, labels)) fail('selector does not match the pod labels');
  if (pod.automountServiceAccountToken !== false) fail('automountServiceAccountToken must be false');
  if (pod.securityContext?.runAsNonRoot !== true) fail('pod runAsNonRoot must be true');
  if (pod.securityContext?.seccompProfile?.type !== 'RuntimeDefault') fail('pod seccompProfile must be RuntimeDefault');
  for (const c of pod.containers) {
    const tag = imageTag(c.image);
    if (!tag || tag === 'latest') fail(`container ${c.name}: image ${c.image} has no pinned tag`);
    const sc = c.securityContext ?? {};
    if (
      sc.allowPrivilegeEscalation !== false ||
      sc.readOnlyRootFilesystem !== true ||
      !(sc.capabilities?.drop ?? []).includes('ALL')
    ) {
      fail(
        `container ${c.name}: needs allowPrivilegeEscalation false, readOnlyRootFilesystem true, capabilities drop ALL`,
      );
    }
    for (const side of ['requests', 'limits'])
      for (const r of ['cpu', 'memory'])
        if (!c.resources?.[side]?.[r]) fail(`container ${c.name}: resources.${side}.${r} missing`);
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
      if (!c[probe]) fail(`container ${c.name}: ${probe} missing`);
  }
  if (!objects.some((o) => o.kind === 'PodDisruptionBudget' && matches(o.spec.selector?.matchLabels, labels)))
    fail('no PodDisruptionBudget selects its pods');
}

/** Which Deployment component (ingest, reporting, api) an Ingress backend reaches. */
function backendComponent(backend, objects) {
  const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === backend.service?.name);
  return svc?.spec.selector?.['app.kubernetes.io/component'];
}

function checkIngress(ing, objects, fail) {
  for (const rule of ing.spec.rules ?? []) {
    for (const p of rule.http?.paths ?? []) {
      if (!PATH_TYPES.has(p.pathType))
        fail(`${rule.host}${p.path}: pathType ${p.pathType} is not one of ${[...PATH_TYPES].join(', ')}`);
      const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === p.backend.service?.name);
      if (!svc) fail(`${rule.host}${p.path}: no Service ${p.backend.service?.name}`);
      else if (
        !svc.spec.ports.some(
          (sp) => sp.name === p.backend.service.port.name || sp.port === p.backend.service.port.number,
        )
      ) {
        fail(`${rule.host}${p.path}: Service ${svc.metadata.name} has no such port`);
      }
    }
  }
}

/** {events_url} is one host: the pixel to ingest, reports to reporting (possibly in separate Ingress objects). */
function checkEventsAddress(objects, fail) {
  const wanted = { '/v1/': 'ingest', '/api/v1/': 'reporting' };
  const hosts = new Map();
  for (const o of objects.filter((x) => x.kind === 'Ingress')) {
    for (const rule of o.spec.rules ?? []) {
      const paths = hosts.get(rule.host) ?? [];
      paths.push(...(rule.http?.paths ?? []));
      hosts.set(rule.host, paths);
    }
  }
  const ok = [...hosts.values()].some((paths) =>
    Object.entries(wanted).every(([path, component]) =>
      paths.some((p) => p.path === path && backendComponent(p.backend, objects) === component),
    ),
  );
  if (!ok) fail('no Ingress host routes /v1/ to ingest and /api/v1/ to reporting');
}

/** Paths only operators and the cluster may reach (docs/operations.md sections 1 and 11). */
const INTERNAL_PATHS = ['/admin/', '/metrics', '/healthz', '/readyz'];

/** Would a request for `internal` match this Ingress path? */
function routes(p, internal) {
  if (p.pathType === 'Exact') return p.path === internal || p.path === internal.replace(/\/$/, '');
  const prefix = p.path.replace(/\/$/, '');
  return (
    prefix === '' || internal === prefix || internal.startsWith(`${prefix}/`) || internal.replace(/\/$/, '') === prefix
  );
}

/** No public route to operator or probe endpoints, and every Ingress carries a per-client rate limit. */
function checkPublicSurface(ing, fail) {
  for (const rule of ing.spec.rules ?? []) {
    for (const p of rule.http?.paths ?? []) {
      for (const internal of INTERNAL_PATHS)
        if (routes(p, internal)) fail(`${rule.host}${p.path} routes ${internal}, which must stay internal`);
    }
  }
  const rps = Number(ing.metadata.annotations?.['nginx.ingress.kubernetes.io/limit-rps']);
  if (!(rps > 0)) fail('no per-client rate limit (nginx.ingress.kubernetes.io/limit-rps)');
}

/** Every problem found, as `Kind/name: message`; empty when the manifests hold together. */
export function checkManifests(objects) {
  const problems = [];
  const failFor = (o) => (m) => problems.push(`${id(o)}: ${m}`);
  for (const o of objects) {
    if (o.kind === 'Deployment') checkDeployment(o, objects, failFor(o));
    if (o.kind === 'StatefulSet') checkStatefulSet(o, objects, failFor(o));
    if (o.kind === 'Service') checkService(o, objects, failFor(o));
    if (o.kind === 'Ingress') {
      checkIngress(o, objects, failFor(o));
      checkPublicSurface(o, failFor(o));
    }
    if (o.kind === 'HorizontalPodAutoscaler') {
      const target = objects.find(
        (t) => t.kind === o.spec.scaleTargetRef.kind && t.metadata.name === o.spec.scaleTargetRef.name,
      );
      if (!target) failFor(o)(`scale target ${o.spec.scaleTargetRef.name} does not exist`);
      if ((o.spec.minReplicas ?? 1) > o.spec.maxReplicas) failFor(o)('minReplicas exceeds maxReplicas');
    }
  }
  checkEventsAddress(objects, (m) => problems.push(m));
  const ingest = objects.find(
    (o) => o.kind === 'Deployment' && o.spec.template.metadata?.labels?.['app.kubernetes.io/component'] === 'ingest',
  );
  if (
    !objects.some((o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef.name === ingest?.metadata.name)
  ) {
    problems.push('the ingest Deployment has no HorizontalPodAutoscaler');
  }
  return problems;
}
