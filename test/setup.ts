import '../lib/demo/polyfills.js';
