# Reads Rails locale files with Ruby's i18n gem (Psych, Ruby's YAML reader, underneath) and
# answers I18n.t for each query read from standard input as JSON:
# [{"locale": "pl", "key": "files.count", "count": 5}, ...] -> [text or null, ...].
#
# Usage: ruby rails_i18n.rb FILE... < queries.json
#
# Plural forms are chosen by I18n::Backend::Pluralization with CLDR's rules of the tested
# languages, written here: Debian's rails-i18n package ships only its shared rule modules,
# not the per-language files that would select them.
require 'i18n'
require 'json'

I18n::Backend::Simple.include(I18n::Backend::Pluralization)
I18n.enforce_available_locales = false
I18n.load_path += ARGV

whole = ->(n) { n.is_a?(Integer) }
RULES = {
  en: ->(n) { whole.(n) && n == 1 ? :one : :other },
  fr: ->(n) { (0...2).cover?(n) && (whole.(n) || n < 2) ? :one : :other },
  ja: ->(_n) { :other },
  pl: lambda do |n|
    next :other unless whole.(n)
    if n == 1 then :one
    elsif (2..4).cover?(n % 10) && !(12..14).cover?(n % 100) then :few
    else :many
    end
  end,
  ar: lambda do |n|
    next :other unless whole.(n)
    if n.zero? then :zero
    elsif n == 1 then :one
    elsif n == 2 then :two
    elsif (3..10).cover?(n % 100) then :few
    elsif (11..99).cover?(n % 100) then :many
    else :other
    end
  end
}.freeze
RULES.each { |locale, rule| I18n.backend.store_translations(locale, i18n: { plural: { rule: rule } }) }

answers = JSON.parse($stdin.read).map do |query|
  options = { locale: query['locale'].to_sym, raise: true }
  options[:count] = query['count'] if query.key?('count')
  begin
    answer = I18n.t(query['key'], **options)
    answer.is_a?(String) ? answer : answer.inspect
  rescue I18n::MissingTranslationData
    nil
  end
end
puts JSON.generate(answers)
