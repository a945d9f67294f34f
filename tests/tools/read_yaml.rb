# Reads Rails locale files with Psych (Ruby's YAML reader, which Rails' i18n loads them with)
# and prints every text they hold as JSON, for the real-apps test:
# [{"file", "key", "language", "text"} or {"file", "key", "language", "forms"}].
#
# Usage: ruby read_yaml.rb FILE...
#
# The root keys are the languages (a Symfony file's root, whose keys are no language codes,
# holds the keys of the language its path names); names nest at `.`; a mapping whose keys are all CLDR plural
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

# A Symfony file as Symfony's YAML reader takes it (YAML 1.2's core schema): keys as written
# (`no:` is the key `no`, where Psych makes it `false`), plain `true`/`false`, nulls and
# numbers are no texts. Walks Psych's syntax tree, which keeps scalars as written.
def walk_symfony(file, node, prefix, found)
  return unless node.is_a?(Psych::Nodes::Mapping)

  node.children.each_slice(2) do |key_node, value|
    next unless key_node.is_a?(Psych::Nodes::Scalar)

    key = prefix.empty? ? key_node.value : "#{prefix}.#{key_node.value}"
    case value
    when Psych::Nodes::Mapping
      walk_symfony(file, value, key, found)
    when Psych::Nodes::Scalar
      plain = value.plain && !value.quoted
      core = /\A(true|false|null|~|[-+]?\d+(\.\d+)?)?\z/i
      next if plain && value.value.match?(core)

      found << { file: file, key: key, language: '', text: value.value } unless value.value.empty?
    end
  end
end

# A root key that is a language code (`fr`, `pt-BR`, `zh_Hant`).
LANGUAGE = /\A[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*\z/.freeze

found = []
ARGV.each do |file|
  data = YAML.safe_load(File.read(file, encoding: 'UTF-8'), permitted_classes: [Symbol, Date, Time, Regexp], aliases: true)
  next unless data.is_a?(Hash)

  if data.keys.all? { |language| language.is_a?(String) && language.match?(LANGUAGE) }
    data.each { |language, tree| walk(file, language.to_s, tree, '', found) }
  else
    # A Symfony file (`messages.fr.yml`): its root holds the keys, its path names the language.
    walk_symfony(file, YAML.parse(File.read(file, encoding: 'UTF-8')).root, '', found)
  end
rescue StandardError, Psych::Exception => e
  found << { file: file, error: "#{e.class}: #{e.message}" }
end
puts JSON.generate(found)
