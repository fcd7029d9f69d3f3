// PolicyRules: policy-rules/*.conf (SPA-JSON) parsed into the engine configuration.
