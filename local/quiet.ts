// Local runs (demo, tests, bench) use the real handler modules: keep their Lambda-oriented JSON logs
// and EMF metric lines off the terminal unless asked for. Imported before any handler module.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
