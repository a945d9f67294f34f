//! The table of route templates and their methods, built from the OpenAPI document plus the
//! routes outside it. It names the route of a request path (for logs and metrics, so that
//! label values stay few) and lists the methods of a path (for `Allow` on 405 answers).

/// One route template, such as `/teams/{teamName}/projects`.
struct Template {
    text: String,
    segments: Vec<Segment>,
    /// Whether it ends in [`Segment::Rest`], which matches paths of any length.
    open: bool,
    methods: Vec<String>,
}

enum Segment {
    Literal(String),
    Param,
    /// Matches the rest of the path (`/exports/{id}/{path}`).
    Rest,
}

pub struct Routes {
    templates: Vec<Template>,
}

impl Routes {
    /// Builds the table from an OpenAPI document and extra `(template, methods)` pairs.
    /// Hidden operations (not in the document) are covered by the templates that match them.
    pub fn new(spec: &serde_json::Value, extra: &[(&str, &[&str])]) -> Self {
        let mut templates = Vec::new();
        if let Some(paths) = spec["paths"].as_object() {
            for (path, item) in paths {
                let methods = item
                    .as_object()
                    .map(|item| item.keys().map(|method| method.to_uppercase()).collect())
                    .unwrap_or_default();
                templates.push(Template::parse(path, methods));
            }
        }
        for (path, methods) in extra {
            templates.push(Template::parse(
                path,
                methods.iter().map(|method| method.to_string()).collect(),
            ));
        }
        // Literal segments before parameters, as the router prefers them.
        templates.sort_by_key(|template| {
            template
                .segments
                .iter()
                .map(|segment| !matches!(segment, Segment::Literal(_)))
                .collect::<Vec<_>>()
        });
        Self { templates }
    }

    /// The template of the first route whose path matches, or `None` for an unknown path.
    pub fn template(&self, path: &str) -> Option<&str> {
        self.find(path).map(|template| template.text.as_str())
    }

    /// The first template that matches `path`. Only templates of as many segments as the path
    /// (or ending in the rest of the path) are compared segment by segment.
    fn find(&self, path: &str) -> Option<&Template> {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        self.templates
            .iter()
            .filter(|template| template.open || template.segments.len() == parts.len())
            .find(|template| template.matches(&parts))
    }

    /// The methods of the route that serves this path, as an `Allow` header value. Like the
    /// router, it takes the most literal matching route only: `/teams/acme/projects` is the
    /// project list, never the deprecated `/teams/{teamName}/{projectName}`.
    pub fn allowed_methods(&self, path: &str) -> Option<String> {
        let template = self.find(path)?;
        let mut methods: Vec<&str> = template.methods.iter().map(String::as_str).collect();
        methods.sort_unstable();
        Some(methods.join(", "))
    }
}

impl Template {
    fn parse(text: &str, methods: Vec<String>) -> Self {
        let segments: Vec<Segment> = text
            .trim_start_matches('/')
            .split('/')
            .map(|segment| match segment {
                "{path}" if text.starts_with("/exports/") => Segment::Rest,
                _ if segment.starts_with('{') => Segment::Param,
                _ => Segment::Literal(segment.to_owned()),
            })
            .collect();
        Self {
            text: text.to_owned(),
            open: matches!(segments.last(), Some(Segment::Rest)),
            segments,
            methods,
        }
    }

    /// Whether a path split at its slashes (`parts`) matches.
    fn matches(&self, parts: &[&str]) -> bool {
        let mut parts = parts.iter();
        for segment in &self.segments {
            match (segment, parts.next()) {
                (Segment::Rest, Some(part)) => return !part.is_empty(),
                (Segment::Param, Some(part)) if !part.is_empty() => {}
                (Segment::Literal(literal), Some(part)) if literal == part => {}
                _ => return false,
            }
        }
        parts.next().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routes() -> Routes {
        let spec = serde_json::json!({"paths": {
            "/teams": {"get": {}, "post": {}},
            "/teams/{teamName}/projects": {"get": {}, "post": {}},
            "/teams/{teamName}/{projectName}": {"delete": {}},
            "/teams/{teamName}/projects/{projectName}/keys/{keyName}": {"get": {}, "patch": {}, "delete": {}},
            "/teams/{teamName}/projects/{projectName}/keys/export": {"get": {}, "patch": {}, "delete": {}},
        }});
        Routes::new(&spec, &[("/exports/{id}/{path}", &["GET"])])
    }

    #[test]
    fn paths_are_named_by_their_template_with_literals_first() {
        let routes = routes();
        assert_eq!(
            routes.template("/teams/acme/projects"),
            Some("/teams/{teamName}/projects")
        );
        assert_eq!(
            routes.template("/teams/acme/mobile"),
            Some("/teams/{teamName}/{projectName}")
        );
        assert_eq!(
            routes.template("/teams/a/projects/m/keys/export"),
            Some("/teams/{teamName}/projects/{projectName}/keys/export")
        );
        assert_eq!(
            routes.template("/exports/abc/values-fr/strings.xml"),
            Some("/exports/{id}/{path}")
        );
        assert_eq!(routes.template("/nothing"), None);
    }

    #[test]
    fn allowed_methods_are_those_of_the_route_that_serves_the_path() {
        let routes = routes();
        assert_eq!(routes.allowed_methods("/teams").as_deref(), Some("GET, POST"));
        assert_eq!(
            routes.allowed_methods("/teams/a/projects/m/keys/export").as_deref(),
            Some("DELETE, GET, PATCH")
        );
        assert_eq!(
            routes.allowed_methods("/teams/acme/projects").as_deref(),
            Some("GET, POST")
        );
        assert_eq!(routes.allowed_methods("/teams/acme/mobile").as_deref(), Some("DELETE"));
        assert_eq!(routes.allowed_methods("/nothing"), None);
    }
}
