# Reads Rails locale files with Psych (Ruby's YAML reader, which Rails' i18n loads them with)
# and prints every text they hold as JSON, for the real-apps test:
# [{"file", "key", "language", "text"} or {"file", "key", "language", "forms"}].
#
# Usage: ruby read_yaml.rb FILE...
#
# The root keys are the languages; names nest at `.`; a mapping whose keys are all CLDR plural
# categories (and holds `other` or `one`) is a plural's forms, as Rails' i18n pluralizes it.
# Values that are not texts (numbers, booleans, arrays, nil) are no texts; empty texts are no
# translations. A file that does not parse is an entry {"file", "error"}.
require 'date'
require 'json'
require 'yaml'

CATEGORIES = %w[zero one two few many other].freeze

def walk(file, language, value, prefix, found)
  return unless value.is_a?(Hash)

  value.each do |name, inner|
    key = prefix.empty? ? name.to_s : "#{prefix}.#{name}"
    if inner.is_a?(Hash) && !inner.empty? && inner.keys.all? { |form| CATEGORIES.include?(form.to_s) } &&
       (inner.key?('other') || inner.key?(:other) || inner.key?('one') || inner.key?(:one))
      forms = inner.to_h { |form, text| [form.to_s, text] }.select { |_, text| text.is_a?(String) && !text.empty? }
      found << { file: file, key: key, language: language, forms: forms } unless forms.empty?
    elsif inner.is_a?(Hash)
      walk(file, language, inner, key, found)
    elsif inner.is_a?(String) && !inner.empty?
      found << { file: file, key: key, language: language, text: inner }
    end
  end
end

found = []
ARGV.each do |file|
  data = YAML.safe_load(File.read(file, encoding: 'UTF-8'), permitted_classes: [Symbol, Date, Time, Regexp], aliases: true)
  next unless data.is_a?(Hash)

  data.each { |language, tree| walk(file, language.to_s, tree, '', found) }
rescue StandardError, Psych::Exception => e
  found << { file: file, error: "#{e.class}: #{e.message}" }
end
puts JSON.generate(found)
