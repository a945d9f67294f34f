# Formats texts with Ruby's i18n gem, I18n.interpolate (what I18n.t and Rails' t() run on a
# found text): the Rails side of tests/api/placeholder_pairs.rs.
#
#   echo '[{"text": "%{name} has %{count}", "args": {"name": "Ana"}, "count": 3}]' \
#     | ruby fmt_rails.rb
#   -> ["Ana has 3"]
#
# stdin: a JSON list of {"text", "args": {name: value}, "count"?, "locale"?}: a text is a
# string, or a hash of plural forms by CLDR category of which I18n's Pluralization backend picks
# one by `count` in `locale` (default "en"), as I18n.t(key, count:) does; `count` is also an
# argument (`%{count}`), as in I18n.t.
# stdout: a JSON list, per text the result or {"error": "..."} (I18n raises
# MissingInterpolationArgument for a `%{name}` without a value).
require 'i18n'
require 'json'

I18n::Backend::Simple.include(I18n::Backend::Pluralization)
I18n.enforce_available_locales = false
# CLDR's rules of the languages the tests use (Debian's rails-i18n ships no per-language files).
RULES = {
  en: ->(n) { n == 1 ? :one : :other },
  fr: ->(n) { n.is_a?(Integer) && (0..1).cover?(n) ? :one : :other }
}.freeze
RULES.each { |locale, rule| I18n.backend.store_translations(locale, i18n: { plural: { rule: rule } }) }

answers = JSON.parse($stdin.read).map do |item|
  locale = (item['locale'] || 'en').to_sym
  values = (item['args'] || {}).transform_keys(&:to_sym)
  values[:count] = item['count'] if item.key?('count')
  text = item['text']
  begin
    if text.is_a?(Hash)
      forms = text.transform_keys(&:to_sym)
      text = I18n.backend.send(:pluralize, locale, forms, item['count'])
    end
    I18n.interpolate(text, values)
  rescue I18n::ArgumentError, ArgumentError => e
    { error: "#{e.class}: #{e.message}" }
  end
end
puts JSON.generate(answers)
