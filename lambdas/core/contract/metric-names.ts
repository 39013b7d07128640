/**
 * Names of pod-doctor's own CloudWatch metrics, shared by the functions that publish them (Powertools
 * EMF) and the stack's alarms on them.
 */

/** Namespace of every pod-doctor metric (POWERTOOLS_METRICS_NAMESPACE). */
export const METRICS_NAMESPACE = 'PodDoctor';

/** The `service` dimension Powertools adds to every metric (POWERTOOLS_SERVICE_NAME). */
export const SERVICE_NAME = 'pod-doctor';

/**
 * A cluster whose Kubernetes API could not be read: by the sweep (per sweep) or by the Kubernetes
 * function (per request). Dimensions `service` and `cluster`; published only on failure.
 */
export const CLUSTER_READ_FAILED = 'ClusterReadFailed';

/**
 * A function read a configuration document whose hash is not the version its deployment pinned
 * (the row was written by someone other than the deployment): it ran in observe mode for every
 * class. Dimension `service`; published only on a mismatch, and alarmed.
 */
export const CONFIG_INTEGRITY_MISMATCH = 'ConfigIntegrityMismatch';
